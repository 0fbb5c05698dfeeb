import ConfabCrypto
import ConfabModel
import ConfabStore

/// Turns what a person typed into a peer or a conversation. A peer is found by full key,
/// then fingerprint, then a key prefix matching one known key, and only then by display
/// name (compared by skeleton, so case and look-alike letters do not matter): a name comes
/// from the peer's own Hello, so it must never shadow a key. Conversations are found by id
/// prefix first, then as a peer's most recent thread, then by title. Errors list the
/// candidates.
public struct Resolver: Sendable {
    public let store: ConfabStore

    public init(store: ConfabStore) {
        self.store = store
    }

    /// A full key or a fingerprint, and nothing that could point at another key (a name,
    /// a prefix): what marking a key verified must take.
    public static func exactKey(_ text: String) -> NodeID? {
        let query = text.trimmingCharacters(in: .whitespaces)
        return NodeID(hex: query) ?? NodeID(fingerprint: query)
    }

    public func peer(_ text: String) throws -> NodeID {
        let query = text.trimmingCharacters(in: .whitespaces)
        if let key = Self.exactKey(query) { return key }
        let peers = try store.peers()
        if query.count >= 4, Hex.isHexPrefix(query) {
            let matches = peers.filter { $0.id.hex.hasPrefix(query.lowercased()) }
            if matches.count == 1 { return matches[0].id }
            if matches.count > 1 {
                throw ResolveError.ambiguous(query, candidates: matches.map(Self.candidate))
            }
        }
        let skeleton = NameSkeleton.of(query)
        let named = peers.filter { NameSkeleton.of($0.name) == skeleton }
        if named.count == 1 { return named[0].id }
        if named.count > 1 { throw ResolveError.ambiguous(query, candidates: named.map(Self.candidate)) }
        throw ResolveError.unknownPeer(query, known: peers.map(\.name))
    }

    private static func candidate(_ peer: Peer) -> String { "\(peer.name) (\(peer.id.shortHex))" }

    public func conversation(_ text: String) throws -> ConversationID {
        let query = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let room = try room(query) { return room }
        if query.count >= 4, Hex.isHexPrefix(query) {
            let matches = try store.conversationIDs().filter { $0.hex.hasPrefix(query) }
            if matches.count == 1 { return matches[0] }
            if matches.count > 1 {
                let summaries = try matches.compactMap { try store.conversation($0) }
                throw ResolveError.ambiguous(query, candidates: summaries.map { "\($0.id.shortHex) \($0.displayName)" })
            }
        }
        let peer: NodeID
        do {
            peer = try self.peer(text)
        } catch let error as ResolveError where error.isUnknown {
            if let titled = try conversation(titled: query) { return titled }
            if let room = try joinedRoom(query) { return room }
            throw ResolveError.unknownConversation(text, known: try store.conversations(.all).map(\.displayName))
        }
        guard let conversation = try store.latestConversation(with: peer) else {
            throw ResolveError.noConversation(with: text)
        }
        return conversation
    }

    /// `#general`: a room joined here (Protocol.md §18), or, when not joined, an error that
    /// says how to join it; nil for text that does not start with `#`.
    func room(_ query: String) throws -> ConversationID? {
        guard query.hasPrefix("#"), let name = RoomName(typed: query) else { return nil }
        guard let room = try store.joinedRooms()[name] else { throw ResolveError.notInRoom(name) }
        return room
    }

    /// A room joined here named without its `#`, tried after every peer's name and title.
    func joinedRoom(_ query: String) throws -> ConversationID? {
        guard let name = RoomName(typed: query) else { return nil }
        return try store.joinedRooms()[name]
    }

    /// The conversation whose title is `query`, as the list shows it (case and look-alike
    /// letters ignored); nil when none. A title is the group's own name, so it is tried
    /// after every peer's.
    func conversation(titled query: String) throws -> ConversationID? {
        let titled = try store.conversations(.all).filter { $0.title.map(NameSkeleton.of) == NameSkeleton.of(query) }
        if titled.count > 1 {
            throw ResolveError.ambiguous(query, candidates: titled.map { "\($0.id.shortHex) \($0.displayName)" })
        }
        return titled.first?.id
    }
}

public struct ResolveError: Error, Equatable, CustomStringConvertible {
    private enum Reason: Equatable {
        case unknownPeer(String, known: [String])
        case unknownConversation(String, known: [String])
        case ambiguous(String, candidates: [String])
        case noConversation(String)
        case notInRoom(RoomName)
        case unknownMessage(String, why: String)
    }

    private let reason: Reason

    static func unknownPeer(_ name: String, known: [String]) -> ResolveError {
        ResolveError(reason: .unknownPeer(name, known: known))
    }
    static func unknownConversation(_ name: String, known: [String]) -> ResolveError {
        ResolveError(reason: .unknownConversation(name, known: known))
    }
    static func ambiguous(_ name: String, candidates: [String]) -> ResolveError {
        ResolveError(reason: .ambiguous(name, candidates: candidates))
    }
    static func noConversation(with name: String) -> ResolveError { ResolveError(reason: .noConversation(name)) }
    static func notInRoom(_ room: RoomName) -> ResolveError { ResolveError(reason: .notInRoom(room)) }
    static func unknownMessage(_ text: String, why: String) -> ResolveError {
        ResolveError(reason: .unknownMessage(text, why: why))
    }

    var isUnknown: Bool {
        if case .unknownPeer = reason { return true }
        return false
    }

    /// Names and titles in the lists come from the network: shown on one line, without
    /// escape sequences (what the person typed is shown as typed).
    public var description: String {
        switch reason {
        case .unknownPeer(let name, let known):
            let list = known.isEmpty ? "none yet" : known.map(TextSanitizer.line).joined(separator: ", ")
            return "no peer named \"\(name)\" — known peers: \(list) (run \"confab peers\", or add one with "
                + "\"confab peers add KEY --name NAME\")"
        case .unknownConversation(let name, let known):
            let list = known.isEmpty ? "none yet" : known.prefix(10).map(TextSanitizer.line).joined(separator: ", ")
            return "no conversation or peer matches \"\(name)\" — conversations: \(list) (run \"confab list\")"
        case .ambiguous(let name, let candidates):
            return
                "\"\(name)\" is ambiguous — it matches: \(candidates.map(TextSanitizer.line).joined(separator: "; ")); "
                + "type more of the key or id"
        case .noConversation(let name):
            return "no conversation with \(name) yet — start one with \"confab new \(name)\""
        case .notInRoom(let room):
            return
                "you have not joined \(room) — join it with \"confab join \(room.text)\" (\"confab rooms\" lists rooms)"
        case .unknownMessage(let text, let why):
            return "no message \"\(text)\" to act on: \(why)"
        }
    }
}
