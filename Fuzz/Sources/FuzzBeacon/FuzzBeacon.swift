import CLibFuzzerDriver
import ConfabCrypto
import ConfabModel
import ConfabWire

// A UDP datagram from anyone on the LAN. Raw mode: never a crash, and `inspect` (what
// `confab doctor` reads) agrees with `decode`. Mutation mode: a validly signed beacon
// corrupted where the input says; whatever still decodes, or inspects as valid under
// another network's key, must say exactly what was signed.

private let key = try! SigningKeyPair(seed: [UInt8](repeating: 5, count: 32))
private let beacon = Beacon(node: NodeID(key.publicKey), tcpPort: 7461, role: .relay, timestamp: 1_700_000_000_000)
private let datagram = BeaconCodec.encode(beacon, signedBy: key, networkKey: .default)
private let otherNetwork = NetworkKey(bytes: [UInt8](repeating: 9, count: 32))!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = input.first else { return 0 }
    if mode & 1 == 0 {
        let datagram = Array(input.dropFirst())
        let inspected = BeaconCodec.inspect(datagram, networkKey: .default)
        switch Result(catching: { () throws(WireError) in try BeaconCodec.decode(datagram, networkKey: .default) }) {
        case .success(let decoded?):
            precondition(inspected == .ours(decoded), "inspect disagrees with decode on a beacon of this network")
        case .success(nil):
            if case .ours = inspected { preconditionFailure("inspect calls ours a beacon decode ignores") }
        case .failure:
            if case .invalid = inspected {} else { preconditionFailure("inspect accepts what decode refuses") }
        }
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
    switch BeaconCodec.inspect(bytes, networkKey: otherNetwork) {
    case .ours(let inspected), .otherNetwork(let inspected, _):
        precondition(inspected == beacon, "a corrupted beacon inspected with different content")
    case .invalid:
        break
    }
    return 0
}

/// SwiftPM links each executable with `main` aliased to `<target>_main`, which would
/// otherwise be missing here (no top-level code); it starts libFuzzer's driver.
@_cdecl("FuzzBeacon_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    confab_run_libfuzzer(argc, argv)
}
