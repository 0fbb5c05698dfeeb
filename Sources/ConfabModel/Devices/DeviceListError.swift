/// A device list, or an entry of one, that is refused (Protocol.md §20.3–§20.4). Each rule
/// has its own `rule`, so that callers and tests tell them apart; the description says which
/// entry and what was wrong, for logs.
public struct DeviceListError: Error, Equatable, CustomStringConvertible {
    public enum Rule: String, Sendable, CaseIterable {
        /// An entry, a list, the listed devices or a removal's cuts beyond their limits.
        case tooLarge = "too_large"
        /// Bytes that do not decode as an entry, or a field of the wrong length.
        case malformed
        /// An entry of another person than the one the list is asked for.
        case wrongPerson = "wrong_person"
        case badSeq = "bad_seq"
        case badPrevious = "bad_previous"
        case badTimestamp = "bad_timestamp"
        case badSignature = "bad_signature"
        /// No `add`, `remove` or `rename`.
        case noChange = "no_change"
        /// A device key that is not a valid Ed25519 point.
        case badDevice = "bad_device"
        /// The person's own key, which is always a device and never added or removed.
        case deviceIsPerson = "device_is_person"
        /// A device added that the list had listed before (a removed device never comes back).
        case listedBefore = "listed_before"
        case badName = "bad_name"
        /// A removal or rename of a key that is not a device of the person.
        case notListed = "not_listed"
        case badCuts = "bad_cuts"
        case badEncryptionKey = "bad_encryption_key"
        /// A removal that keeps an encryption key the person had before.
        case encryptionKeyNotNew = "encryption_key_not_new"
        /// A rename whose encryption key is not the one of the entry before it.
        case encryptionKeyChanged = "encryption_key_changed"
        /// A rename as the list's first entry, which has no encryption key to keep.
        case renameFirst = "rename_first"
        case badWraps = "bad_wraps"
        /// The writer cannot open the person's encryption secret from the list it extends.
        case encryptionSecretUnavailable = "encryption_secret_unavailable"
    }

    public let rule: Rule
    /// The entry refused, when one is.
    public let seq: UInt64?
    private let detail: String

    public init(_ rule: Rule, seq: UInt64?, _ detail: String) {
        self.rule = rule
        self.seq = seq
        self.detail = detail
    }

    public var description: String {
        guard let seq else { return "device list: \(detail)" }
        return "device list entry \(seq): \(detail)"
    }
}
