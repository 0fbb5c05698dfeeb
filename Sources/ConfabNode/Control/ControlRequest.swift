import ConfabModel
import ConfabStore
import Foundation

/// One request on the control socket (Protocol.md §13): the `Messenger` calls, typed. On
/// the wire a JSON object per line, `{"v": 1, "id": 7, "method": "send", "params": {…}}`;
/// ids travel as hex and are decoded here, once, into typed values.
public enum ControlRequest: Sendable, Equatable {
    case status
    case peers
    /// A message, a reply to `replyTo` when given (a message of the same conversation).
    case send(text: String, to: MessageTarget, replyTo: MessageRef? = nil)
    /// Several messages to one conversation, stored in one transaction and answered with
    /// one line (`send --lines`): per-line requests and answers cost a script's pipe more
    /// than storing the messages.
    case sendLines(texts: [String], to: ConversationID)
    /// A file of this machine (an absolute path), in `folder` of a tree sent.
    case sendFile(path: String, folder: String, to: MessageTarget)
    /// Fetch this file whatever its size.
    case acceptFile(FileID)
    case create(participants: [NodeID], title: String?, firstMessage: String?)
    /// A new text for my message `target` (its seq) in `conversation`.
    case edit(conversation: ConversationID, target: UInt64, text: String)
    /// Delete my message `target` in `conversation` for everyone.
    case unsend(conversation: ConversationID, target: UInt64)
    /// My reaction `emoji` to any message of `conversation`, added or taken back.
    case react(conversation: ConversationID, target: MessageRef, emoji: String, removed: Bool)
    /// Add and remove members of `conversation` (Protocol.md §4.8).
    case changeMembers(conversation: ConversationID, add: [NodeID], remove: [NodeID], shareHistory: Bool)
    /// Leave `conversation`.
    case leave(ConversationID)
    case markRead(ConversationID)
    case setFlag(LocalFlag, Bool, on: ConversationID)
    case delete(ConversationID)
    case setTrust(Peer.Trust, for: NodeID)
    /// Another process wrote to this conversation through the store: offer it now.
    case changed(ConversationID)
    /// My person is typing in this conversation (or stopped): tell the participants online.
    case typing(ConversationID, active: Bool)
    case resync
    /// Events from now on, for one conversation or all.
    case watch(ConversationID?)

    public var method: String {
        switch self {
        case .status: "status"
        case .peers: "peers"
        case .send: "send"
        case .sendLines: "send_lines"
        case .sendFile: "send_file"
        case .acceptFile: "accept_file"
        case .create: "create"
        case .edit: "edit"
        case .unsend: "unsend"
        case .react: "react"
        case .changeMembers: "change_members"
        case .leave: "leave"
        case .markRead: "mark_read"
        case .setFlag: "set_flag"
        case .delete: "delete"
        case .setTrust: "set_trust"
        case .changed: "changed"
        case .typing: "typing"
        case .resync: "resync"
        case .watch: "watch"
        }
    }
}

/// A request line: the protocol version, the caller's id for the answer, the request.
public struct ControlEnvelope: Sendable, Equatable {
    /// The control protocol this build speaks. A request with another version (or none, as
    /// from a confab older than version 1) is answered with an error naming both.
    public static let version = 1

    public var version: Int
    public var id: Int?
    public var request: ControlRequest

    public init(id: Int?, request: ControlRequest, version: Int = ControlEnvelope.version) {
        self.version = version
        self.id = id
        self.request = request
    }
}

extension ControlEnvelope: Codable {
    private enum Keys: String, CodingKey { case v, id, method, params }

    private struct Params: Codable {
        var text: String?
        var texts: [String]?
        var conversation: ConversationID?
        var peer: NodeID?
        var participants: [NodeID]?
        var title: String?
        var firstMessage: String?
        var flag: String?
        var value: Bool?
        var trust: String?
        var target: UInt64?
        /// A message named by author and seq: what a reply answers, what a reaction is on.
        var message: MessageRef?
        var replyTo: MessageRef?
        var emoji: String?
        /// `react` takes a flag, `change_members` a list of keys.
        var remove: RemoveParam?
        var add: [NodeID]?
        var history: Bool?
        var path: String?
        var folder: String?
        var file: FileID?
    }

    /// `remove` is a flag for a reaction (take it back) and the keys leaving for a change
    /// of members: each method reads the form it takes and refuses the other.
    private enum RemoveParam: Codable {
        case flag(Bool)
        case keys([NodeID])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                self = .flag(flag)
            } else {
                self = .keys(try container.decode([NodeID].self))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .flag(let flag): try container.encode(flag)
            case .keys(let keys): try container.encode(keys)
            }
        }
    }

    /// Why a request line could not be read; the message goes back to the caller.
    public struct Malformed: Error, CustomStringConvertible {
        public let description: String
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        id = try container.decodeIfPresent(Int.self, forKey: .id)
        version = try container.decodeIfPresent(Int.self, forKey: .v) ?? 0
        guard version == Self.version else {
            throw Malformed(
                description:
                    "this node speaks control protocol version \(Self.version), the request is version \(version) — use the confab binary that matches the running node"
            )
        }
        let method = try container.decode(String.self, forKey: .method)
        let params = try container.decodeIfPresent(Params.self, forKey: .params) ?? Params()
        func need<T>(_ value: T?, _ name: String) throws -> T {
            guard let value else { throw Malformed(description: "\(method) needs param \(name)") }
            return value
        }
        switch method {
        case "status": request = .status
        case "peers": request = .peers
        case "send":
            let target: MessageTarget
            switch (params.conversation, params.peer) {
            case (let conversation?, nil): target = .conversation(conversation)
            case (nil, let peer?): target = .newConversation(with: peer)
            default: throw Malformed(description: "send needs exactly one of params conversation and peer")
            }
            request = .send(text: try need(params.text, "text"), to: target, replyTo: params.replyTo)
        case "send_lines":
            let texts = try need(params.texts, "texts")
            guard !texts.isEmpty else { throw Malformed(description: "send_lines needs at least one text") }
            request = .sendLines(texts: texts, to: try need(params.conversation, "conversation"))
        case "send_file":
            let target: MessageTarget
            switch (params.conversation, params.peer) {
            case (let conversation?, nil): target = .conversation(conversation)
            case (nil, let peer?): target = .newConversation(with: peer)
            default: throw Malformed(description: "send_file needs exactly one of params conversation and peer")
            }
            let path = try need(params.path, "path")
            guard path.hasPrefix("/") else { throw Malformed(description: "send_file needs an absolute path") }
            request = .sendFile(path: path, folder: params.folder ?? "", to: target)
        case "accept_file": request = .acceptFile(try need(params.file, "file"))
        case "create":
            request = .create(
                participants: try need(params.participants, "participants"), title: params.title,
                firstMessage: params.firstMessage)
        case "edit":
            request = .edit(
                conversation: try need(params.conversation, "conversation"), target: try need(params.target, "target"),
                text: try need(params.text, "text"))
        case "unsend":
            request = .unsend(
                conversation: try need(params.conversation, "conversation"), target: try need(params.target, "target"))
        case "react":
            let removed: Bool
            switch params.remove {
            case nil: removed = false
            case .flag(let flag): removed = flag
            case .keys: throw Malformed(description: "react's param remove is true or false")
            }
            request = .react(
                conversation: try need(params.conversation, "conversation"),
                target: try need(params.message, "message"), emoji: try need(params.emoji, "emoji"),
                removed: removed)
        case "change_members":
            let add = params.add ?? []
            let remove: [NodeID]
            switch params.remove {
            case nil: remove = []
            case .keys(let keys): remove = keys
            case .flag: throw Malformed(description: "change_members's param remove is an array of keys")
            }
            guard !add.isEmpty || !remove.isEmpty else {
                throw Malformed(description: "change_members needs param add or remove (arrays of keys)")
            }
            request = .changeMembers(
                conversation: try need(params.conversation, "conversation"), add: add, remove: remove,
                shareHistory: params.history ?? false)
        case "leave": request = .leave(try need(params.conversation, "conversation"))
        case "mark_read": request = .markRead(try need(params.conversation, "conversation"))
        case "set_flag":
            guard let flag = params.flag.flatMap(LocalFlag.init(rawValue:)) else {
                throw Malformed(
                    description:
                        "set_flag needs param flag, one of \(LocalFlag.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            request = .setFlag(flag, try need(params.value, "value"), on: try need(params.conversation, "conversation"))
        case "delete": request = .delete(try need(params.conversation, "conversation"))
        case "set_trust":
            guard let trust = params.trust.flatMap(Peer.Trust.init(rawValue:)) else {
                throw Malformed(description: "set_trust needs param trust: unverified, verified or blocked")
            }
            request = .setTrust(trust, for: try need(params.peer, "peer"))
        case "changed": request = .changed(try need(params.conversation, "conversation"))
        case "typing":
            request = .typing(try need(params.conversation, "conversation"), active: try need(params.value, "value"))
        case "resync": request = .resync
        case "watch": request = .watch(params.conversation)
        default: throw Malformed(description: "unknown method \"\(method)\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(version, forKey: .v)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(request.method, forKey: .method)
        var params = Params()
        switch request {
        case .status, .peers, .resync: break
        case .send(let text, let target, let replyTo):
            params.text = text
            params.replyTo = replyTo
            switch target {
            case .conversation(let id): params.conversation = id
            case .newConversation(let peer): params.peer = peer
            }
        case .sendLines(let texts, let id):
            params.texts = texts
            params.conversation = id
        case .sendFile(let path, let folder, let target):
            params.path = path
            params.folder = folder.isEmpty ? nil : folder
            switch target {
            case .conversation(let id): params.conversation = id
            case .newConversation(let peer): params.peer = peer
            }
        case .acceptFile(let file): params.file = file
        case .create(let participants, let title, let firstMessage):
            params.participants = participants
            params.title = title
            params.firstMessage = firstMessage
        case .edit(let id, let target, let text):
            params.conversation = id
            params.target = target
            params.text = text
        case .unsend(let id, let target):
            params.conversation = id
            params.target = target
        case .react(let id, let target, let emoji, let removed):
            params.conversation = id
            params.message = target
            params.emoji = emoji
            params.remove = .flag(removed)
        case .changeMembers(let id, let add, let remove, let shareHistory):
            params.conversation = id
            params.add = add
            params.remove = .keys(remove)
            params.history = shareHistory
        case .markRead(let id), .delete(let id), .changed(let id), .leave(let id): params.conversation = id
        case .setFlag(let flag, let value, let id):
            params.flag = flag.rawValue
            params.value = value
            params.conversation = id
        case .setTrust(let trust, let peer):
            params.trust = trust.rawValue
            params.peer = peer
        case .watch(let id): params.conversation = id
        case .typing(let id, let active):
            params.conversation = id
            params.value = active
        }
        try container.encode(params, forKey: .params)
    }
}
