import ConfabModel
import Foundation

/// The control socket's JSON lines (Protocol.md §13): one request per line, one response
/// per request, and after a `watch` request a stream of events.
public enum ControlProtocol {
    public static let socketName = "control.sock"
    public static let maxLineBytes = 256 * 1024

    public struct Request: Codable, Sendable {
        public var id: Int?
        public var method: String
        public var params: [String: String]?

        public init(id: Int? = nil, method: String, params: [String: String]? = nil) {
            self.id = id
            self.method = method
            self.params = params
        }
    }

    public struct Response<Result: Codable & Sendable>: Codable, Sendable {
        public var id: Int?
        public var ok: Bool
        public var result: Result?
        public var error: String?
    }

    /// What a `send` request returns.
    public struct Sent: Codable, Sendable {
        public let conversation: String
        public let seq: UInt64
        public let status: String
        public let created: Bool

        public init(conversation: String, seq: UInt64, status: String, created: Bool) {
            self.conversation = conversation
            self.seq = seq
            self.status = status
            self.created = created
        }
    }

    /// One event of a `watch` stream.
    public struct Event: Codable, Sendable, Equatable {
        /// "message", "status", "peer_online" or "peer_offline".
        public let event: String
        public var message: JSONOutput.Message?
        public var conversation: String?
        public var seq: UInt64?
        public var status: String?
        public var peer: PeerPresence?
    }

    public struct Empty: Codable, Sendable {}

    static func event(_ event: NodeEvent) -> Event {
        switch event {
        case .message(let message):
            return Event(event: "message", message: JSONOutput.message(message))
        case .status(let conversation, let seq, let status):
            return Event(event: "status", conversation: conversation.hex, seq: seq, status: status.rawValue)
        case .peerOnline(let peer):
            return Event(event: "peer_online", peer: peer)
        case .peerOffline(let peer):
            return Event(event: "peer_offline", peer: peer)
        }
    }
}

extension JSONOutput.Message: Equatable {
    public static func == (a: Self, b: Self) -> Bool { a.id == b.id && a.text == b.text && a.status == b.status }
}
