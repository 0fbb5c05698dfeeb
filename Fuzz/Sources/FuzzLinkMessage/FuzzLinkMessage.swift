import CLibFuzzerDriver
import ConfabWire

// A link message from a machine that knows the code (Protocol.md §20.10): any bytes. Never a
// trap; a message taken keeps every field rule, and encoding it again decodes to the same.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let message = try? LinkMessageCodec.decode(input) else { return 0 }
    switch message {
    case .request(let name):
        precondition(!name.isEmpty && name.utf8.count <= 64, "a device name out of its limits")
    case .refuse(let reason):
        precondition(reason.utf8.count <= LinkMessageCodec.maxReasonBytes, "a reason out of its limit")
    case .grant(let grant):
        precondition(grant.networkKey.count == 32 && !grant.deviceEntries.isEmpty, "a grant out of its rules")
        precondition(grant.keyMessages <= LinkMessageCodec.maxKeyMessages, "too many key messages")
    case .keys(let keys):
        precondition(!keys.isEmpty && keys.count <= LinkMessageCodec.maxKeysPerMessage, "a key count out of limits")
        precondition(keys.allSatisfy { $0.key.count == 32 && $0.seq >= 1 }, "a key out of its rules")
    case .confirm, .done:
        break
    }
    let again = try? LinkMessageCodec.decode(LinkMessageCodec.encode(message))
    precondition(again == message, "encoding a decoded message again gave another")
    return 0
}

/// SwiftPM links each executable with `main` aliased to `<target>_main`, which would
/// otherwise be missing here (no top-level code); it starts libFuzzer's driver.
@_cdecl("FuzzLinkMessage_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    confab_run_libfuzzer(argc, argv)
}
