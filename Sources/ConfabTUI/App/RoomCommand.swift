import ConfabModel

/// A room command typed in the chat's input bar (Protocol.md §18): `/rooms`, `/join NAME`.
/// Leaving a room is `/leave` in it, as for a group.
public enum RoomCommand: Equatable, Sendable {
    case list
    case join(RoomName)
    /// `/join` with something that is no room name: what to tell the person.
    case invalid(String)

    /// The command a line is, or nil for anything else.
    public init?(line: String) {
        let words = line.trimmingCharacters(in: .whitespacesAndNewlines).split(whereSeparator: \.isWhitespace)
            .map(String.init)
        switch (words.first, words.count) {
        case ("/rooms", 1): self = .list
        case ("/join", 2): self = RoomName(typed: words[1]).map { .join($0) } ?? .invalid(RoomName.rule)
        default: return nil
        }
    }

    /// What it asks of the runtime, or the notice that says why nothing.
    var effect: Result<ChatEffect, RoomCommandError> {
        switch self {
        case .list: .success(.loadRooms)
        case .join(let name): .success(.joinRoom(name))
        case .invalid(let why): .failure(RoomCommandError(message: why))
        }
    }
}

public struct RoomCommandError: Error, Equatable {
    public let message: String
}
