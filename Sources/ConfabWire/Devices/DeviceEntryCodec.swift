import ConfabCrypto
import ConfabModel
import Foundation
import SwiftProtobuf

/// Encodes, signs, decodes and verifies the entries of a person's device list (Protocol.md
/// §20), by `EntryCodec`'s rules: sizes first, unknown fields skipped, a depth limit, the
/// last member of the `change` oneof wins, and the signature checked over the exact content
/// bytes received, never over a re-encoding.
public enum DeviceEntryCodec {
    static let signatureDomain: [UInt8] = Array("confab/device/v1".utf8) + [0]

    /// The entries of a list nest three messages deep; 8 leaves room for fields a later
    /// version adds and refuses what nests deeper.
    static let decodingOptions: BinaryDecodingOptions = {
        var options = BinaryDecodingOptions()
        options.messageDepthLimit = 8
        options.discardUnknownFields = true
        return options
    }()

    /// The stored and transmitted form of an entry.
    public static func encode(_ entry: DeviceEntry) -> [UInt8] {
        var signed = Confab_V1_SignedDeviceEntry()
        signed.content = Data(entry.content)
        signed.signature = Data(entry.signature)
        return try! signed.serializedBytes()
    }

    /// An entry written and signed by `person`. Nothing is checked here: `DeviceListWriter`
    /// checks what it writes as a receiver would before handing it out.
    static func sign(
        person: SigningKeyPair, seq: UInt64, previous: EntryHash?, timestamp: Int64, keys: DeviceKeys,
        change: DeviceChange
    ) -> DeviceEntry {
        var content = Confab_V1_DeviceEntryContent()
        content.person = Data(person.publicKey.bytes)
        content.seq = seq
        content.previous = Data(previous?.bytes ?? [])
        content.timestampMs = timestamp
        var encodedKeys = Confab_V1_DeviceKeys()
        encodedKeys.encryptionKey = Data(keys.encryptionKey)
        encodedKeys.ephemeral = Data(keys.ephemeral)
        encodedKeys.wraps = Data(keys.wraps)
        content.keys = encodedKeys
        switch change {
        case .add(let device, let name):
            var add = Confab_V1_DeviceAdd()
            add.device = Data(device.bytes)
            add.name = name
            content.add = add
        case .remove(let device, let cuts):
            var remove = Confab_V1_DeviceRemove()
            remove.device = Data(device.bytes)
            remove.cuts = cuts.map { cut in
                var encoded = Confab_V1_DeviceCut()
                encoded.conversationID = Data(cut.conversation.bytes)
                encoded.lastSeq = cut.lastSeq
                return encoded
            }
            content.remove = remove
        case .rename(let device, let name):
            var rename = Confab_V1_DeviceRename()
            rename.device = Data(device.bytes)
            rename.name = name
            content.rename = rename
        }
        // Encoding a message built from valid values cannot fail.
        let contentBytes = [UInt8](try! content.serializedBytes() as [UInt8])
        return DeviceEntry(
            person: NodeID(person.publicKey), seq: seq, previous: previous, timestamp: timestamp, keys: keys,
            change: change, content: contentBytes, signature: person.sign(signatureDomain + contentBytes))
    }

    /// Decodes and verifies an entry of `person`'s list from untrusted bytes: everything an
    /// entry must be by itself (§20.3). What depends on the entries before it is
    /// `DeviceList.append`'s.
    public static func decode(_ bytes: [UInt8], person: NodeID) throws(DeviceListError) -> DeviceEntry {
        guard bytes.count <= DeviceList.maxEntryBytes else {
            throw DeviceListError(
                .tooLarge, seq: nil, "an entry of \(bytes.count) bytes (limit \(DeviceList.maxEntryBytes))")
        }
        let signed: Confab_V1_SignedDeviceEntry
        do {
            signed = try Confab_V1_SignedDeviceEntry(serializedBytes: bytes, options: decodingOptions)
        } catch {
            throw DeviceListError(.malformed, seq: nil, "signed device entry envelope")
        }
        let contentBytes = [UInt8](signed.content)
        let content: Confab_V1_DeviceEntryContent
        do {
            content = try Confab_V1_DeviceEntryContent(serializedBytes: contentBytes, options: decodingOptions)
        } catch {
            throw DeviceListError(.malformed, seq: nil, "device entry content")
        }
        let seq = content.seq
        guard content.person == Data(person.bytes) else {
            throw DeviceListError(.wrongPerson, seq: seq, "the entry is not of \(person.shortHex)'s list")
        }
        guard seq >= 1, seq <= UInt64(DeviceList.maxEntries) else {
            throw DeviceListError(.badSeq, seq: seq, "seq outside 1 … \(DeviceList.maxEntries)")
        }
        let previous: EntryHash?
        if seq == 1 {
            guard content.previous.isEmpty else { throw DeviceListError(.badPrevious, seq: seq, "previous on seq 1") }
            previous = nil
        } else {
            guard let hash = EntryHash(bytes: content.previous) else {
                throw DeviceListError(.badPrevious, seq: seq, "previous of \(content.previous.count) bytes, want 32")
            }
            previous = hash
        }
        guard Limits.timestampRange.contains(content.timestampMs) else {
            throw DeviceListError(
                .badTimestamp, seq: seq, "timestamp \(content.timestampMs) ms outside 1970-01-01 … 3000-01-01")
        }
        let signature = [UInt8](signed.signature)
        // Verified before the fields are read further: a lie from another key stops here,
        // whatever else it got wrong.
        guard verifies(signature, content: contentBytes, person: person) else {
            throw DeviceListError(.badSignature, seq: seq, "signature does not verify with the person's key")
        }
        let change = try decodeChange(content.change, person: person, seq: seq)
        let keys = try decodeKeys(content.keys, seq: seq)
        return DeviceEntry(
            person: person, seq: seq, previous: previous, timestamp: content.timestampMs, keys: keys, change: change,
            content: contentBytes, signature: signature)
    }

    /// Whether the person signed this entry's content with the signature it carries.
    public static func hasValidSignature(_ entry: DeviceEntry) -> Bool {
        verifies(entry.signature, content: entry.content, person: entry.person)
    }

    /// 64 zero bytes never verify, whatever a key of small order would make Ed25519 say
    /// (§4.3), so that every implementation decides alike.
    private static func verifies(_ signature: [UInt8], content: [UInt8], person: NodeID) -> Bool {
        signature.count == SigningPublicKey.signatureLength && signature != EntryCodec.unsigned
            && person.signingKey.verify(signature: signature, message: signatureDomain + content)
    }

    /// Decodes and folds a whole list of `person`, seq 1 first; throws at the first entry
    /// refused, so a list is taken whole or not at all.
    public static func decodeList(_ encoded: [[UInt8]], person: NodeID) throws(DeviceListError) -> DeviceList {
        guard encoded.count <= DeviceList.maxEntries else {
            throw DeviceListError(.tooLarge, seq: nil, "\(encoded.count) entries (limit \(DeviceList.maxEntries))")
        }
        // Sizes before any decoding: an oversize entry anywhere refuses the list at once.
        if let index = encoded.firstIndex(where: { $0.count > DeviceList.maxEntryBytes }) {
            throw DeviceListError(
                .tooLarge, seq: UInt64(index + 1),
                "an entry of \(encoded[index].count) bytes (limit \(DeviceList.maxEntryBytes))")
        }
        var list = DeviceList(person: person)
        for bytes in encoded { try list.append(try decode(bytes, person: person)) }
        return list
    }

    private static func decodeChange(
        _ change: Confab_V1_DeviceEntryContent.OneOf_Change?, person: NodeID, seq: UInt64
    ) throws(DeviceListError) -> DeviceChange {
        switch change {
        case .add(let add):
            let device = try checkDevice(add.device, person: person, seq: seq)
            try checkName(add.name, seq: seq)
            return .add(device: device, name: add.name)
        case .remove(let remove):
            let device = try checkDevice(remove.device, person: person, seq: seq)
            return .remove(device: device, cuts: try decodeCuts(remove.cuts, seq: seq))
        case .rename(let rename):
            // The person's own key or a listed one, which the fold checks: either was a valid
            // point when it became a device.
            guard let device = NodeID(bytes: rename.device) else {
                throw DeviceListError(.malformed, seq: seq, "device key of \(rename.device.count) bytes, want 32")
            }
            try checkName(rename.name, seq: seq)
            return .rename(device: device, name: rename.name)
        case .none:
            throw DeviceListError(.noChange, seq: seq, "none of add, remove and rename")
        }
    }

    /// A key that can be a device: 32 bytes, a point whose X25519 form exists (on the curve,
    /// in the main subgroup, not of small order), so the encryption secret can be wrapped to
    /// it, and not the person's own key.
    private static func checkDevice(_ bytes: Data, person: NodeID, seq: UInt64) throws(DeviceListError) -> NodeID {
        guard let device = NodeID(bytes: bytes) else {
            throw DeviceListError(.malformed, seq: seq, "device key of \(bytes.count) bytes, want 32")
        }
        guard device != person else {
            throw DeviceListError(.deviceIsPerson, seq: seq, "the person's own key is always a device, never listed")
        }
        guard (try? device.signingKey.curve25519()) != nil else {
            throw DeviceListError(.badDevice, seq: seq, "device key \(device.shortHex) is not a valid Ed25519 point")
        }
        return device
    }

    /// A device's name by §8.1's rules, as it will be shown: 1 to 64 bytes, already in the
    /// form a name is stored in (so what is signed is what is seen), not like a key.
    private static func checkName(_ name: String, seq: UInt64) throws(DeviceListError) {
        guard !name.isEmpty, name.utf8.count <= Limits.maxNameBytes else {
            throw DeviceListError(
                .badName, seq: seq, "a device name of \(name.utf8.count) bytes (1 … \(Limits.maxNameBytes))")
        }
        guard DisplayName.cleaned(name) == name else {
            throw DeviceListError(
                .badName, seq: seq, "a device name with controls, format characters or extra spaces")
        }
        if let refusal = DisplayName.keyLikeRefusal(name) { throw DeviceListError(.badName, seq: seq, refusal) }
    }

    private static func decodeCuts(_ cuts: [Confab_V1_DeviceCut], seq: UInt64) throws(DeviceListError) -> [DeviceCut] {
        guard cuts.count <= DeviceList.maxCuts else {
            throw DeviceListError(.tooLarge, seq: seq, "\(cuts.count) cuts (limit \(DeviceList.maxCuts))")
        }
        var seen: Set<ConversationID> = []
        var decoded: [DeviceCut] = []
        decoded.reserveCapacity(cuts.count)
        for cut in cuts {
            guard let conversation = ConversationID(bytes: cut.conversationID) else {
                throw DeviceListError(
                    .badCuts, seq: seq, "a cut's conversation id of \(cut.conversationID.count) bytes, want 16")
            }
            guard seen.insert(conversation).inserted else {
                throw DeviceListError(.badCuts, seq: seq, "two cuts for conversation \(conversation.hex)")
            }
            guard cut.lastSeq >= 1, cut.lastSeq <= Limits.maxSeq else {
                throw DeviceListError(.badCuts, seq: seq, "a cut at seq \(cut.lastSeq) (1 … \(Limits.maxSeq))")
            }
            decoded.append(DeviceCut(conversation: conversation, lastSeq: cut.lastSeq))
        }
        return decoded
    }

    /// E of 32 bytes and not of small order (a key anyone could compute a shared secret
    /// with), an ephemeral key of 32 bytes, and wraps of a whole number of devices; how many
    /// is the fold's to check.
    private static func decodeKeys(_ keys: Confab_V1_DeviceKeys, seq: UInt64) throws(DeviceListError) -> DeviceKeys {
        guard keys.encryptionKey.count == DeviceKeys.keyLength, !isOfSmallOrder([UInt8](keys.encryptionKey)) else {
            throw DeviceListError(
                .badEncryptionKey, seq: seq,
                "encryption key of \(keys.encryptionKey.count) bytes or of small order (want 32, not of small order)")
        }
        guard keys.ephemeral.count == ScalarMult.pointLength else {
            throw DeviceListError(.badWraps, seq: seq, "ephemeral key of \(keys.ephemeral.count) bytes, want 32")
        }
        guard !keys.wraps.isEmpty, keys.wraps.count % DeviceKeys.wrapLength == 0 else {
            throw DeviceListError(.badWraps, seq: seq, "\(keys.wraps.count) bytes of wraps, not a multiple of 32")
        }
        return DeviceKeys(
            encryptionKey: [UInt8](keys.encryptionKey), ephemeral: [UInt8](keys.ephemeral), wraps: [UInt8](keys.wraps))
    }

    /// libsodium's X25519 refuses a point of small order (its result would be all zeros,
    /// whatever the scalar), so any fixed scalar tells one apart.
    private static func isOfSmallOrder(_ point: [UInt8]) -> Bool {
        (try? ScalarMult.sharedSecret(secretKey: probeScalar, publicKey: point)) == nil
    }

    private static let probeScalar = SecureBytes([UInt8](repeating: 0x01, count: ScalarMult.scalarLength))
}
