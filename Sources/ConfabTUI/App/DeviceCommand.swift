import Foundation

/// A device command typed in the chat's input bar (Protocol.md §20): `/devices` lists my
/// person's machines, `/devices remove NAME [--yes]` removes one. NAME is what
/// `confab devices remove` takes: a name, or a prefix of a key or fingerprint.
public enum DeviceCommand: Equatable, Sendable {
    case list
    /// Remove the device `query` names; unless `confirmed`, the answer is the device to ask
    /// about first, and nothing is removed.
    case remove(String, confirmed: Bool)
    /// `/devices remove` naming nothing: what to tell the person.
    case invalid(String)

    static let usage = "/devices lists your machines; /devices remove NAME removes one (a name or key prefix)"

    /// The command a line is, or nil for anything else (`/devices are great` is a message).
    public init?(line: String) {
        let words = line.trimmingCharacters(in: .whitespacesAndNewlines).split(whereSeparator: \.isWhitespace)
            .map(String.init)
        guard words.first == "/devices" else { return nil }
        let rest = Array(words.dropFirst())
        guard let verb = rest.first else {
            self = .list
            return
        }
        guard verb == "remove" else { return nil }
        let named = rest.dropFirst().filter { $0 != "--yes" && $0 != "-y" }
        guard !named.isEmpty else {
            self = .invalid(Self.usage)
            return
        }
        self = .remove(named.joined(separator: " "), confirmed: named.count < rest.count - 1)
    }
}
