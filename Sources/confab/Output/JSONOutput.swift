import ConfabModel
import ConfabStore
import Foundation

/// The JSON that commands print with `--json`. These shapes are a public interface for
/// scripts (documented in the README): fields are only ever added, never renamed.
enum JSONOutput {
    struct Conversation: Encodable {
        let id: String
        let title: String?
        let name: String
        let participants: [Participant]
        let createdAt: String
        let lastActivityAt: String
        let lastMessage: LastMessage?
        let unread: Int
        let markedUnread: Bool
        let pinned: Bool
        let archived: Bool
        let muted: Bool
    }

    struct Participant: Encodable {
        let id: String
        let name: String
    }

    struct LastMessage: Encodable {
        let author: String
        let mine: Bool
        let text: String
        let sentAt: String
        let status: String?
    }

    struct Message: Encodable {
        let id: String
        let conversation: String
        let author: String
        let authorName: String
        let seq: UInt64
        let mine: Bool
        let text: String?
        let sentAt: String
        let status: String?
    }

    struct PeerInfo: Encodable {
        let id: String
        let name: String
        let fingerprint: String
        let trust: String
        let addedAt: String
        let lastSeenAt: String?
        let address: String?
    }

    struct SearchResult: Encodable {
        let conversation: Conversation
        let message: Message?
        let snippet: String?
    }

    static func conversation(_ c: ConversationSummary) -> Conversation {
        Conversation(
            id: c.id.hex, title: c.title, name: c.displayName,
            participants: c.participants.map { Participant(id: $0.id.hex, name: $0.name) },
            createdAt: timestamp(c.createdAt), lastActivityAt: timestamp(c.lastActivityAt),
            lastMessage: c.lastMessage.map {
                LastMessage(
                    author: $0.author.hex, mine: $0.isMine, text: $0.text, sentAt: timestamp($0.sentAt),
                    status: $0.status?.rawValue)
            },
            unread: c.unreadCount, markedUnread: c.isMarkedUnread, pinned: c.isPinned, archived: c.isArchived,
            muted: c.isMuted)
    }

    static func message(_ m: ChatMessage) -> Message {
        Message(
            id: m.id, conversation: m.conversationID.hex, author: m.author.hex, authorName: m.authorName, seq: m.seq,
            mine: m.isMine, text: m.text, sentAt: timestamp(m.sentAt), status: m.status?.rawValue)
    }

    static func peer(_ p: Peer) -> PeerInfo {
        PeerInfo(
            id: p.id.hex, name: p.name, fingerprint: p.id.fingerprint, trust: p.trust.rawValue,
            addedAt: timestamp(p.addedAt), lastSeenAt: p.lastSeenAt.map(timestamp), address: p.address)
    }

    static func searchResult(_ hit: SearchHit) -> SearchResult {
        SearchResult(
            conversation: conversation(hit.conversation), message: hit.message.map(message), snippet: hit.snippet)
    }

    /// RFC 3339 in UTC with milliseconds.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// Prints one JSON document on one line (so `--json` output is also valid JSON Lines).
    static func print(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        Console.out(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
