import CLibFuzzerDriver
import ConfabCrypto
import ConfabModel
import ConfabWire

// A UDP datagram from anyone on the LAN. Raw mode: never a crash. Mutation mode: a validly
// signed beacon corrupted where the input says; whatever still decodes must say exactly
// what was signed.

private let key = try! SigningKeyPair(seed: [UInt8](repeating: 5, count: 32))
private let beacon = Beacon(node: NodeID(key.publicKey), tcpPort: 7461, role: .relay, timestamp: 1_700_000_000_000)
private let datagram = BeaconCodec.encode(beacon, signedBy: key, networkKey: .default)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = input.first else { return 0 }
    if mode & 1 == 0 {
        _ = try? BeaconCodec.decode(Array(input.dropFirst()), networkKey: .default)
        return 0
    }
    var bytes = datagram
    var index = 1
    while index + 1 < input.count {
        bytes[Int(input[index]) % bytes.count] ^= input[index + 1]
        index += 2
    }
    if let decoded = try? BeaconCodec.decode(bytes, networkKey: .default) {
        precondition(decoded == beacon, "a corrupted beacon decoded with different content")
    }
    return 0
}

/// SwiftPM links each executable with `main` aliased to `<target>_main`, which would
/// otherwise be missing here (no top-level code); it starts libFuzzer's driver.
@_cdecl("FuzzBeacon_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    confab_run_libfuzzer(argc, argv)
}
