import ConfabModel
import ConfabStore
import Foundation

/// The JSON that commands print with `--json` and the control socket speaks. These shapes
/// are a public interface for scripts (documented in docs/commands.md and Protocol.md): fields
/// are only ever added, never renamed.
public enum JSONOutput {
    public struct Conversation: Codable, Sendable {
        public let id: String
        public let title: String?
        public let name: String
        public let participants: [Participant]
        public let createdAt: String
        public let lastActivityAt: String
        public let lastMessage: LastMessage?
        public let unread: Int
        public let markedUnread: Bool
        public let pinned: Bool
        public let archived: Bool
        public let muted: Bool
        /// Participants proven to have forked their log here (Protocol.md §7.1), by key.
        public let forkedAuthors: [String]?
        /// Present (true) when the key sealed to this node does not open the conversation.
        public let keyProblem: Bool?
        /// What a person must be told about the conversation, in plain words.
        public let warnings: [String]?
    }

    public struct Participant: Codable, Sendable {
        public let id: String
        public let name: String
        /// `unverified`, `verified` or `blocked`.
        public let trust: String
    }

    public struct LastMessage: Codable, Sendable {
        public let author: String
        public let mine: Bool
        public let text: String
        public let sentAt: String
        public let status: String?
    }

    public struct Message: Codable, Sendable {
        public let id: String
        public let conversation: String
        public let author: String
        public let authorName: String
        public let seq: UInt64
        public let mine: Bool
        public let text: String?
        public let sentAt: String
        public let status: String?
        /// When the text was last edited by its author; absent when never edited.
        public let editedAt: String?
        /// Present (true) when its author deleted it for everyone; `text` is then absent.
        public let deleted: Bool?
        /// The texts it had before the current one, oldest first; absent when never edited.
        public let edits: [Version]?
        /// The message this one replies to, as it reads now; absent when not a reply.
        public let replyTo: Quoted?
        /// The members the text mentions, in text order; absent when none.
        public let mentions: [Person]?
        /// Present (true) when the text mentions me.
        public let mentionsMe: Bool?
        /// The emoji on the message, most reactors first; absent when none.
        public let reactions: [ReactionGroup]?
        /// Present on a system line instead of a message: the change of members it tells of
        /// (no `text`).
        public let membership: Membership?
        /// Present on a system line of a member's devices changing (no `text`).
        public var device: Device? = nil
        /// The system line as a sentence ("Alice added Carol", "Alice linked a new device:
        /// laptop (7c1e 2a9f)"), with `membership` or `device`.
        public let system: String?
        /// Present for a file message (`text` is then the file's name).
        public var file: File?
        /// Where it goes in the display order (Protocol.md §6), as `history` gives it: a
        /// front end places a message from an event without reading it again.
        public var orderKey: DisplayOrderKey? = nil
    }

    /// A change of a person's device list, as a system line tells it (Protocol.md §20):
    /// `change` is `linked`, `removed` or `renamed`; `listSeq` the list entry's seq.
    public struct Device: Codable, Sendable, Equatable {
        public let person: String
        public let listSeq: UInt64
        public let change: String
        public let device: String
        public let name: String
        /// For a rename, the name before it (absent when the first machine gets its first).
        public var previousName: String? = nil
    }

    /// A file message's file, and how much of it is here (Protocol.md §17).
    public struct File: Codable, Sendable, Equatable {
        /// The file id, 64 hex characters; `confab save` takes any unique prefix of 4 or more.
        public let id: String
        public let conversation: String
        public let author: String
        public let seq: UInt64
        /// The sender's name for it, on one line; absent when it could not be decrypted.
        public let name: String?
        /// Its folder, relative, `/`-separated, when it was sent as part of a folder.
        public let folder: String?
        public let mediaType: String?
        public let size: UInt64
        public let width: Int?
        public let height: Int?
        /// Bytes of it held here.
        public let held: UInt64
        /// `complete`, `fetching`, `waiting` (over the automatic-download limit: accept it with
        /// `confab save`), `failed` (see `problem`), `unreadable` or `deleted`.
        public let state: String
        public let problem: String?
    }

    /// The original of a reply: its id, author and text now (`deleted` once its author
    /// deleted it for everyone; `missing` while it is not held here).
    public struct Quoted: Codable, Sendable, Equatable {
        public let id: String
        public let author: String
        public let authorName: String
        public let seq: UInt64
        public let text: String?
        public let deleted: Bool?
        public let missing: Bool?
    }

    /// A key and this node's name for it.
    public struct Person: Codable, Sendable, Equatable {
        public let id: String
        public let name: String
    }

    /// One emoji on a message: how many, who (in the order they reacted), and whether I did.
    public struct ReactionGroup: Codable, Sendable, Equatable {
        public let emoji: String
        public let count: Int
        public let reactors: [Person]
        public let mine: Bool
    }

    /// A reaction added or taken back, as a `reaction` event carries it.
    public struct Reaction: Codable, Sendable, Equatable {
        public let reactor: String
        public let reactorName: String
        public let emoji: String
        public let removed: Bool
    }

    /// Who a members entry added and removed, or that its author left.
    public struct Membership: Codable, Sendable, Equatable {
        public let added: [Member]
        public let removed: [Member]
        public let left: Bool
    }

    /// A member: a key and this node's name for it.
    public typealias Member = Person

    /// `confab members --json`: the members in join order, the admin, and former members.
    public struct Members: Codable, Sendable {
        public let conversation: String
        public let members: [Member]
        public let admin: String?
        public let former: [Member]
        public let member: Bool
    }

    public static func members(_ list: MemberList) -> Members {
        Members(
            conversation: list.conversation.hex, members: list.members.map(member), admin: list.admin?.hex,
            former: list.former.map(member), member: list.includesMe)
    }

    private static func member(_ m: MembershipNote.Member) -> Member { Member(id: m.id.hex, name: m.name) }

    /// An earlier text of an edited message, and when its author wrote it.
    public struct Version: Codable, Sendable, Equatable {
        public let text: String
        public let at: String
    }

    public struct PeerInfo: Codable, Sendable {
        public let id: String
        public let name: String
        public let fingerprint: String
        public let trust: String
        public let addedAt: String
        public let lastSeenAt: String?
        public let address: String?
        /// The name the key introduced itself with when another key already had it here.
        public let claimedName: String?
        /// Why to be careful with this key (a claimed name), until it is verified.
        public let warning: String?
    }

    public struct SearchResult: Codable, Sendable {
        public let conversation: Conversation
        public let message: Message?
        public let snippet: String?
    }

    public static func conversation(_ c: ConversationSummary) -> Conversation {
        Conversation(
            id: c.id.hex, title: c.title, name: c.displayName,
            participants: c.participants.map { Participant(id: $0.id.hex, name: $0.name, trust: $0.trust.rawValue) },
            createdAt: timestamp(c.createdAt), lastActivityAt: timestamp(c.lastActivityAt),
            lastMessage: c.lastMessage.map {
                LastMessage(
                    author: $0.author.hex, mine: $0.isMine, text: $0.text, sentAt: timestamp($0.sentAt),
                    status: $0.status?.rawValue)
            },
            unread: c.unreadCount, markedUnread: c.isMarkedUnread, pinned: c.isPinned, archived: c.isArchived,
            muted: c.isMuted, forkedAuthors: c.forkedAuthors.isEmpty ? nil : c.forkedAuthors.map(\.hex),
            keyProblem: c.keyProblem ? true : nil, warnings: c.warnings.isEmpty ? nil : c.warnings)
    }

    public static func message(_ m: ChatMessage) -> Message {
        Message(
            id: m.id, conversation: m.conversationID.hex, author: m.author.hex, authorName: m.authorName, seq: m.seq,
            mine: m.isMine, text: m.text, sentAt: timestamp(m.sentAt), status: m.status?.rawValue,
            editedAt: m.editedAt.map(timestamp), deleted: m.isDeleted ? true : nil,
            edits: m.edits.isEmpty ? nil : m.edits.map { Version(text: $0.text, at: timestamp($0.writtenAt)) },
            replyTo: m.replyTo.map { quoted($0, in: m.conversationID) },
            mentions: m.mentions.isEmpty ? nil : m.mentions.map { Person(id: $0.id.hex, name: $0.name) },
            mentionsMe: m.mentionsMe ? true : nil,
            reactions: m.reactions.isEmpty
                ? nil
                : m.reactions.map { group in
                    ReactionGroup(
                        emoji: group.emoji, count: group.count,
                        reactors: group.reactors.map { Person(id: $0.id.hex, name: $0.name) }, mine: group.includesMe)
                },
            membership: m.membership.map {
                Membership(added: $0.added.map(member), removed: $0.removed.map(member), left: $0.left)
            },
            device: m.device.map {
                Device(
                    person: $0.person.hex, listSeq: $0.listSeq, change: $0.change.rawValue, device: $0.device.hex,
                    name: $0.deviceName, previousName: $0.previousName)
            }, system: m.systemLine, file: m.file.map(file), orderKey: m.orderKey)
    }

    static func quoted(_ quote: Quote, in conversation: ConversationID) -> Quoted {
        Quoted(
            id: quote.ref.id(in: conversation), author: quote.ref.author.hex, authorName: quote.authorName,
            seq: quote.ref.seq, text: quote.text, deleted: quote.isDeleted ? true : nil,
            missing: quote.isHeld ? nil : true)
    }

    public static func reaction(_ change: ReactionChange) -> Reaction {
        Reaction(
            reactor: change.reactor.hex, reactorName: change.reactorName, emoji: change.emoji, removed: change.removed)
    }

    public static func file(_ f: FileInfo) -> File {
        File(
            id: f.fileID.hex, conversation: f.conversationID.hex, author: f.author.hex, seq: f.seq, name: f.name,
            folder: f.folder.isEmpty ? nil : f.folder, mediaType: f.mediaType.isEmpty ? nil : f.mediaType, size: f.size,
            width: f.width > 0 ? f.width : nil, height: f.height > 0 ? f.height : nil, held: f.heldBytes,
            state: f.state.rawValue, problem: f.problem)
    }

    public static func peer(_ p: Peer) -> PeerInfo {
        PeerInfo(
            id: p.id.hex, name: p.name, fingerprint: p.id.fingerprint, trust: p.trust.rawValue,
            addedAt: timestamp(p.addedAt), lastSeenAt: p.lastSeenAt.map(timestamp), address: p.address,
            claimedName: p.claimedName, warning: p.warning)
    }

    public static func searchResult(_ hit: SearchHit) -> SearchResult {
        SearchResult(
            conversation: conversation(hit.conversation), message: hit.message.map(message), snippet: hit.snippet)
    }

    /// RFC 3339 in UTC with milliseconds (`2023-11-14T22:13:20.500Z`), as
    /// `ISO8601DateFormatter` writes it, written by hand: making a formatter for each time was
    /// two thirds of the node's CPU while it served the web app's events and lists
    /// (Bench/web.sh), and one shared formatter is not safe across threads.
    public static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (days, inDay) = milliseconds.floorDivided(by: 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        let seconds = inDay / 1000
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(seconds / 3600, 2) + ":"
            + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2) + "." + pad(inDay % 1000, 3) + "Z"
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let (era, _) = (days + 719_468).floorDivided(by: 146_097)
        let dayOfEra = days + 719_468 - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Reads an RFC 3339 time, with or without a fraction of a second.
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// One JSON document on one line (so output is also valid JSON Lines). Every `Date`
    /// in it is written as `timestamp` writes it, like the times the shapes hold as text.
    public static func line(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(timestamp(date))
        }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Reads what `line` writes (control socket responses and events).
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = date(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "not an RFC 3339 time: \(text)")
            }
            return date
        }
        return decoder
    }
}

extension Int64 {
    /// Quotient rounded down and a remainder that is never negative (times before 1970).
    fileprivate func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = self % divisor
        return remainder < 0 ? (self / divisor - 1, remainder + divisor) : (self / divisor, remainder)
    }
}
