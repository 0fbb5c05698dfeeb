/// One change of a person's settings, as a `setting` entry of the person's personal
/// conversation carries it between the person's devices (Protocol.md §20.15): what it is
/// about, which setting, and the value it takes.
public struct PersonalSetting: Sendable, Equatable {
    /// Which setting of the target. Raw values are the wire's `field`.
    public enum Field: UInt32, Sendable, CaseIterable {
        case pinned = 1
        case archived = 2
        case muted = 3
        case markedUnread = 4
        /// The conversation deleted on this device (`confab delete`): 1 deletes what the
        /// deleting device held (its `upto`), or, with no `upto`, what is held when the change
        /// is taken; 0 says nothing.
        case deleted = 5
        /// "is typing…" shared and shown (Protocol.md §10.2); its target is empty.
        case typing = 6
        /// How far the person trusts a peer key: 0 unverified, 1 verified, 2 blocked.
        case trust = 7
        /// What a peer key is called: 0 a name the key gave itself (a claim, naming the key
        /// only where it has no name yet), 1 a name the person gave it by hand. The name rides
        /// in `name`.
        case name = 8

        /// The bytes a target of this field has: a conversation id, none, or a peer key.
        public var targetLength: Int {
            switch self {
            case .pinned, .archived, .muted, .markedUnread, .deleted: return ConversationID.length
            case .typing: return 0
            case .trust, .name: return NodeID.length
            }
        }

        /// The greatest value the field takes.
        public var maxValue: UInt32 { self == .trust ? 2 : 1 }
    }

    /// A conversation id, a peer key, or empty, as `field.targetLength` says.
    public let target: [UInt8]
    public let field: Field
    public let value: UInt32
    /// Of a deletion: per author, the last seq of the conversation the deleting device held
    /// when it deleted, so a device taking the change late keeps what arrived after (a
    /// message the person never saw is never deleted by a change made before it came).
    public let upto: VectorClock?
    /// Of a name (field 8): the name, as §8.1 stores one (`DisplayName.isStoredForm`).
    public let name: String?

    /// The most authors an `upto` names (the most members a large group has at a time); a
    /// device holding more writes none.
    public static let maxUptoAuthors = 1024

    /// Nil for a target or value the field does not take, an `upto` on another field or
    /// over its limit, or a name missing from a name setting, on another field, or not in
    /// the form a name is stored in (so a name setting names a key only as `peers add`
    /// could have).
    public init?(target: [UInt8], field: Field, value: UInt32, upto: VectorClock? = nil, name: String? = nil) {
        guard target.count == field.targetLength, value <= field.maxValue else { return nil }
        if let upto, field != .deleted || upto.width > Self.maxUptoAuthors { return nil }
        guard (field == .name) == (name != nil) else { return nil }
        if let name, !DisplayName.isStoredForm(name) { return nil }
        self.target = target
        self.field = field
        self.value = value
        self.upto = upto
        self.name = name
    }

    public static func flag(_ field: Field, _ on: Bool, of conversation: ConversationID) -> PersonalSetting {
        PersonalSetting(target: conversation.bytes, field: field, value: on ? 1 : 0)!
    }

    /// What `peer` is called, by the person's hand or by its own claim; nil for a name not
    /// in the form a name is stored in.
    public static func name(_ name: String, of peer: NodeID, byHand: Bool) -> PersonalSetting? {
        PersonalSetting(target: peer.bytes, field: .name, value: byHand ? 1 : 0, name: name)
    }
}
