import ConfabCrypto
import ConfabModel

/// Writes the entries of a person's device list (Protocol.md §20): only the holder of the
/// person's key P does. Each entry is checked as a receiver checks it (decoded from its bytes
/// and appended to the list it extends) before it is handed out, so a writer never signs
/// what others would refuse.
public enum DeviceListWriter {
    /// An entry adding `device` to `list`. On an empty list it starts the list, with the
    /// person's first encryption key (`startingEncryptionKey`, or a fresh one); later adds
    /// keep the key, whose secret P opens from the list itself.
    ///
    /// - Parameters:
    ///   - startingEncryptionKey, ephemeralKeyPair: only for tests that need fixed bytes;
    ///     leave nil otherwise. A starting key is only for an empty list.
    public static func add(
        _ device: NodeID, name: String, to list: DeviceList, person: SigningKeyPair, timestamp: Int64,
        startingEncryptionKey: Curve25519KeyPair? = nil, ephemeralKeyPair: Curve25519KeyPair? = nil
    ) throws(DeviceListError) -> DeviceEntry {
        precondition(startingEncryptionKey == nil || list.isEmpty, "the encryption key changes only on a removal")
        try requireWriter(person, of: list)
        let encryptionKey: Curve25519KeyPair
        if list.isEmpty {
            encryptionKey = startingEncryptionKey ?? .generate()
        } else {
            // P is the first device of its own list: it opens the key it wraps again.
            guard let held = list.encryptionKeyPair(for: person) else {
                throw DeviceListError(
                    .encryptionSecretUnavailable, seq: UInt64(list.count + 1),
                    "the person's key does not open the encryption key of its own list")
            }
            encryptionKey = held
        }
        return try write(
            .add(device: device, name: name), to: list, recipients: list.devices.map(\.key) + [device],
            encryptionKey: encryptionKey, person: person, timestamp: timestamp, ephemeralKeyPair: ephemeralKeyPair)
    }

    /// An entry removing `device` from `list`, with `cuts` (per conversation, the last seq of
    /// its log that stays valid) and a new encryption key for the devices that remain.
    ///
    /// - Parameters:
    ///   - newEncryptionKey, ephemeralKeyPair: only for tests that need fixed bytes; leave
    ///     nil otherwise so fresh keys are drawn.
    public static func remove(
        _ device: NodeID, cuts: [DeviceCut], from list: DeviceList, person: SigningKeyPair, timestamp: Int64,
        newEncryptionKey: Curve25519KeyPair? = nil, ephemeralKeyPair: Curve25519KeyPair? = nil
    ) throws(DeviceListError) -> DeviceEntry {
        try requireWriter(person, of: list)
        return try write(
            .remove(device: device, cuts: cuts), to: list, recipients: list.devices.map(\.key).filter { $0 != device },
            encryptionKey: newEncryptionKey ?? .generate(), person: person, timestamp: timestamp,
            ephemeralKeyPair: ephemeralKeyPair)
    }

    /// An entry giving `device` (the person's own key or a listed one) the name `name`. The
    /// devices stay, so the encryption key does: P opens it from the list and wraps it again
    /// to the same devices under a fresh ephemeral key.
    ///
    /// - Parameter ephemeralKeyPair: only for tests that need fixed bytes; leave nil otherwise.
    public static func rename(
        _ device: NodeID, name: String, in list: DeviceList, person: SigningKeyPair, timestamp: Int64,
        ephemeralKeyPair: Curve25519KeyPair? = nil
    ) throws(DeviceListError) -> DeviceEntry {
        try requireWriter(person, of: list)
        let seq = UInt64(list.count + 1)
        guard !list.isEmpty else {
            throw DeviceListError(.renameFirst, seq: seq, "a list starts with an add, never a rename")
        }
        guard let held = list.encryptionKeyPair(for: person) else {
            throw DeviceListError(
                .encryptionSecretUnavailable, seq: seq,
                "the person's key does not open the encryption key of its own list")
        }
        return try write(
            .rename(device: device, name: name), to: list, recipients: list.devices.map(\.key), encryptionKey: held,
            person: person, timestamp: timestamp, ephemeralKeyPair: ephemeralKeyPair)
    }

    private static func requireWriter(_ person: SigningKeyPair, of list: DeviceList) throws(DeviceListError) {
        guard list.person == NodeID(person.publicKey) else {
            throw DeviceListError(
                .wrongPerson, seq: UInt64(list.count + 1), "only \(list.person.shortHex)'s key writes its list")
        }
    }

    private static func write(
        _ change: DeviceChange, to list: DeviceList, recipients: [NodeID], encryptionKey: Curve25519KeyPair,
        person: SigningKeyPair, timestamp: Int64, ephemeralKeyPair: Curve25519KeyPair?
    ) throws(DeviceListError) -> DeviceEntry {
        let seq = UInt64(list.count + 1)
        let wrapped: (ephemeral: [UInt8], wraps: [UInt8])
        do {
            wrapped = try KeyWraps.wrap(
                encryptionKey.secretKey, to: recipients.map(\.signingKey),
                context: KeyWraps.deviceContext(person: person.publicKey, seq: seq), ephemeralKeyPair: ephemeralKeyPair,
                purpose: .deviceKey)
        } catch {
            throw DeviceListError(.badDevice, seq: seq, "a device key with no X25519 form: \(error)")
        }
        let entry = DeviceEntryCodec.sign(
            person: person, seq: seq, previous: list.entries.last?.hash, timestamp: timestamp,
            keys: DeviceKeys(
                encryptionKey: encryptionKey.publicKey, ephemeral: wrapped.ephemeral, wraps: wrapped.wraps),
            change: change)
        let received = try DeviceEntryCodec.decode(DeviceEntryCodec.encode(entry), person: list.person)
        _ = try list.appending(received)
        return received
    }
}

extension DeviceList {
    /// The person's encryption key pair now, opened by `device` (its Ed25519 key pair) from
    /// the wrap the last entry made for it (§20.5); nil when `device` is not a device of the
    /// person now, or what opens is not the key the entry names.
    public func encryptionKeyPair(for device: SigningKeyPair) -> Curve25519KeyPair? {
        let key = NodeID(device.publicKey)
        guard let last = entries.last, let index = devices.firstIndex(where: { $0.key == key }),
            let secret = KeyWraps.open(
                last.keys.wraps, at: index, ephemeral: last.keys.ephemeral, with: device,
                context: KeyWraps.deviceContext(person: person.signingKey, seq: last.seq), purpose: .deviceKey),
            let pair = try? Curve25519KeyPair(secretKey: secret), pair.publicKey == last.keys.encryptionKey
        else { return nil }
        return pair
    }
}
