import ConfabCrypto
import ConfabModel

/// What a node opens the keys sealed to its person with (Protocol.md §20.12): its own key
/// first (what every writer without the person's device list seals to), then each
/// encryption key of the person its device can unwrap from the list, newest first (a key
/// sealed before a removal was sealed to the E of its day).
public struct OpeningKeys: Sendable {
    /// The member key the keys are sealed for: the person's.
    public let member: NodeID
    public let exchangeKeys: [Curve25519KeyPair]

    public init(member: NodeID, exchangeKeys: [Curve25519KeyPair]) {
        self.member = member
        self.exchangeKeys = exchangeKeys
    }

    /// A node that is its own person and holds no list: its identity's key alone.
    public init(identity: SigningKeyPair) {
        let own = try? Curve25519KeyPair(secretKey: identity.curve25519SecretKey())
        self.init(member: NodeID(identity.publicKey), exchangeKeys: own.map { [$0] } ?? [])
    }

    /// The first of the keys that opens `sealed`.
    public func open(_ sealed: [UInt8]) -> SecureBytes? {
        for pair in exchangeKeys {
            if let opened = try? SealedBox.open(sealed, with: pair) { return opened }
        }
        return nil
    }
}

extension DeviceList {
    /// Every encryption key pair of the person that `device` can unwrap from this list (each
    /// entry's wrap at the device's place after it, §20.5), newest first, each checked against
    /// the key its entry names.
    public func encryptionKeyPairs(for device: SigningKeyPair) -> [Curve25519KeyPair] {
        let key = NodeID(device.publicKey)
        var folded = DeviceList(person: person)
        var pairs: [Curve25519KeyPair] = []
        var seen = Set<[UInt8]>()
        for entry in entries {
            guard (try? folded.append(entry)) != nil else { break }
            guard !seen.contains(entry.keys.encryptionKey),
                let index = folded.devices.firstIndex(where: { $0.key == key }),
                let secret = KeyWraps.open(
                    entry.keys.wraps, at: index, ephemeral: entry.keys.ephemeral, with: device,
                    context: KeyWraps.deviceContext(person: person.signingKey, seq: entry.seq), purpose: .deviceKey),
                let pair = try? Curve25519KeyPair(secretKey: secret), pair.publicKey == entry.keys.encryptionKey
            else { continue }
            seen.insert(pair.publicKey)
            pairs.append(pair)
        }
        return pairs.reversed()
    }
}
