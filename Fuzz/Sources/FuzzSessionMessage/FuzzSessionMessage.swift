import CLibFuzzerDriver
import ConfabWire

// A session message from a hostile peer (the payload of one length-prefixed unit inside
// box-stream): rejected with a WireError, skipped as unknown, or accepted — never a crash.
// Anything accepted must survive a round trip through the encoder unchanged.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let message = try? SessionCodec.decode(input) else { return 0 }
    let again = try? SessionCodec.decode(SessionCodec.encode(message))
    precondition(again == message, "a decoded session message did not survive re-encoding")
    return 0
}

/// SwiftPM links each executable with `main` aliased to `<target>_main`, which would
/// otherwise be missing here (no top-level code); it starts libFuzzer's driver.
@_cdecl("FuzzSessionMessage_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    confab_run_libfuzzer(argc, argv)
}
