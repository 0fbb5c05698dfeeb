import ConfabModel

/// What removing one of my devices wrote (Protocol.md §20.13): the list entry, and the
/// conversations that moved to a new epoch sealed to the person's new encryption key.
public struct DeviceRemovalOutcome: Sendable, Equatable {
    /// The `remove` entry of my list, with its cuts and new encryption key.
    public let entry: DeviceEntry
    /// The conversations rekeyed: what is written in them from now on is sealed to keys the
    /// removed device does not hold.
    public let rekeyed: [ConversationID]
    /// Large groups where I am a member but not the admin, who alone may rekey them
    /// (Protocol.md §19): their key stays the one the removed device holds until the admin
    /// writes the next removal or rekey there.
    public let notRekeyed: [ConversationID]

    public init(entry: DeviceEntry, rekeyed: [ConversationID], notRekeyed: [ConversationID]) {
        self.entry = entry
        self.rekeyed = rekeyed
        self.notRekeyed = notRekeyed
    }
}
