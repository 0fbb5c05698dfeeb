import ConfabModel
import ConfabStore

/// The answer of `remove_device` (Protocol.md §13): the machine removed, and the
/// conversations moved to a key it never gets.
public struct DeviceRemoved: Sendable, Equatable, Codable {
    public let id: NodeID
    /// Its name in the list (or its short key), as text to show.
    public let name: String
    /// What is written there from now on is sealed to keys the removed machine does not hold.
    public let rekeyed: [ConversationID]
    /// Large groups whose admin is someone else, who alone may rekey them (Protocol.md §19):
    /// the removed machine reads what is written there until the admin's next change.
    public let notRekeyed: [ConversationID]

    public init(id: NodeID, name: String, rekeyed: [ConversationID], notRekeyed: [ConversationID]) {
        self.id = id
        self.name = name
        self.rekeyed = rekeyed
        self.notRekeyed = notRekeyed
    }
}
