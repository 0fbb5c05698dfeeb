import CLibFuzzerDriver
import ConfabCrypto
import ConfabModel
import ConfabWire

// A person's device list from a hostile peer (Protocol.md §20). The first byte chooses the
// mode; the rest is a list of entries, each a 2-byte big-endian length and that many bytes.
// Raw (even): each entry as received, decoded and folded as P's list. Signed (odd): each
// entry's bytes are taken as content and signed with P's key, so every check behind the
// signature and the whole fold see arbitrary fields. Either way, never a trap; a list taken
// keeps every rule of the fold, and decoding its entries again gives the same list.

private let person = try! SigningKeyPair(seed: [UInt8](repeating: 0x51, count: 32))
private let personID = NodeID(person.publicKey)
private let domain: [UInt8] = Array("confab/device/v1".utf8) + [0]

/// The signed envelope (field 1: content, field 2: signature) written by hand, so that the
/// fuzzer needs nothing of the codec's internals.
private func envelope(_ content: [UInt8], signature: [UInt8]) -> [UInt8] {
    func field(_ tag: UInt8, _ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [tag]
        var length = bytes.count
        while length >= 0x80 {
            out.append(UInt8(length & 0x7f) | 0x80)
            length >>= 7
        }
        out.append(UInt8(length))
        return out + bytes
    }
    return field(0x0a, content) + field(0x12, signature)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = input.first else { return 0 }
    var chunks: [[UInt8]] = []
    var offset = 1
    while offset + 2 <= input.count {
        let length = Int(input[offset]) << 8 | Int(input[offset + 1])
        let end = min(offset + 2 + length, input.count)
        chunks.append(Array(input[(offset + 2)..<end]))
        offset = end
    }
    if mode % 2 == 1 {
        chunks = chunks.map { envelope($0, signature: person.sign(domain + $0)) }
    }
    let list: DeviceList
    do {
        list = try DeviceEntryCodec.decodeList(chunks, person: personID)
    } catch {
        return 0
    }
    precondition(list.count == chunks.count && list.count <= DeviceList.maxEntries, "a list of another length")
    let devices = list.devices
    precondition(devices.first?.key == personID && devices.count <= DeviceList.maxListedDevices + 1, "devices")
    precondition(Set(devices.map(\.key)).count == devices.count, "a device listed twice")
    for (index, entry) in list.entries.enumerated() {
        precondition(entry.seq == UInt64(index + 1), "seq is not the index")
        precondition(entry.previous == (index == 0 ? nil : list.entries[index - 1].hash), "a broken chain")
        precondition(DeviceEntryCodec.hasValidSignature(entry), "an entry taken without the person's signature")
        if case .remove(let device, _) = entry.change {
            precondition(!list.isDevice(device) && list.removal(of: device) != nil, "a removed device stays")
        }
        if case .rename = entry.change {
            precondition(index > 0, "a rename first")
            precondition(
                entry.keys.encryptionKey == list.entries[index - 1].keys.encryptionKey, "a rename that moved E")
        }
    }
    precondition(list.entries.last.map { $0.keys.wrapCount == devices.count } ?? true, "wraps for other devices")
    precondition(list.compare(with: list) == .same, "a list is not the same as itself")
    let again = try? DeviceEntryCodec.decodeList(list.entries.map(DeviceEntryCodec.encode), person: personID)
    precondition(again == list, "decoding the list again gave another")
    return 0
}

/// SwiftPM links each executable with `main` aliased to `<target>_main`, which would
/// otherwise be missing here (no top-level code); it starts libFuzzer's driver.
@_cdecl("FuzzDeviceList_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    confab_run_libfuzzer(argc, argv)
}
