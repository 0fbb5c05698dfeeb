import ConfabModel
import Foundation

/// That my person's list removed this device (Protocol.md §20.13): from then on whatever it
/// writes as its person is refused by every node past the removal's cuts, and what is
/// sealed after the removal is sealed to keys it does not hold.
public struct MyDeviceRemoval: Sendable, Equatable {
    public let person: NodeID
    /// My person's name as this device knows it (the display name the link gave it).
    public let personName: String
    /// The date the removal entry carries: informational only (§20.4), as its signer said.
    public let removedAt: Date

    public init(person: NodeID, personName: String, removedAt: Date) {
        self.person = person
        self.personName = personName
        self.removedAt = removedAt
    }

    /// What the user is told when they try to write here.
    public var message: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return "This device was removed from \(personName)'s devices (on \(formatter.string(from: removedAt))). "
            + "Its messages would be refused; to use Confab here again, link it anew: "
            + "confab init --link CODE in a new directory"
    }
}
