import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

/// What one batch of appends can share: membership and keys change only with the
/// membership entries the batch itself stores (and the cache follows them), and a
/// conversation's activity time and undelete need writing once per batch, not once per
/// message. The sync path takes in hundreds of
/// entries of a few conversations at a time, so this saves most of the per-entry queries.
final class BatchContext {
    /// A relay keeps conversations it takes no part in; a person's node does not.
    let keepsOthers: Bool
    private let now: Date
    private var creators: [ConversationID: NodeID] = [:]
    private var heads: [ConversationID: [NodeID: UInt64]] = [:]
    /// Conversations whose heads the batch moved.
    private var grown: Set<ConversationID> = []
    private var forked: [ConversationID: Set<NodeID>] = [:]
    private var activity: [ConversationID: Int64] = [:]
    private var blocked: Set<NodeID>?
    private var logs: [ConversationID: MembershipLog] = [:]
    private var epochKeys: [ConversationID: [EntryRef: [UInt8]]] = [:]
    private var openingKeys: [ConversationID: [EntryRef: SecureBytes]] = [:]
    private var insertedHeads: [ConversationID: [NodeID: Head]] = [:]
    private var unjoined: Int?
    /// What my entries written in this batch seal, known before they were sealed.
    private var authoredContents: [EntryHash: AuthoredContent] = [:]
    /// How my messages written in this batch were stored, for showing them as written.
    private var writtenMessages: [EntryHash: WrittenMessage] = [:]
    /// My head in conversations the batch writes in, as the position of my next entry
    /// read it (`AuthorPosition`).
    private var authorHeads: [ConversationID: Head] = [:]
    /// Conversations the peer that sent this batch announced to this node: a create entry
    /// that does not name it may be taken for them, since a members entry may add it
    /// (Protocol.md §7 step 4, invitations).
    let invitations: Set<ConversationID>
    /// The room this batch joins: its create is taken only so, made here from the name and
    /// the network key (Protocol.md §18.1), never from a peer.
    var joining: RoomGenesis?
    private var rooms: [ConversationID: Bool] = [:]
    private var larges: [ConversationID: Bool] = [:]

    /// The store the batch writes to, whose committed membership logs it starts from.
    private let store: ConfabStore

    init(store: ConfabStore, keepsOthers: Bool = false, now: Date = Date(), invitations: Set<ConversationID> = []) {
        self.store = store
        self.keepsOthers = keepsOthers
        self.now = now
        self.invitations = invitations
    }

    /// My entry `hash` seals `content`: stored as said, without opening what was just sealed.
    func noteAuthored(_ hash: EntryHash, content: AuthoredContent) { authoredContents[hash] = content }

    func authoredMessage(_ hash: EntryHash) -> MessageContent? {
        guard case .message(let content) = authoredContents[hash] else { return nil }
        authoredContents[hash] = nil
        return content
    }

    func authoredReaction(_ hash: EntryHash) -> ReactionContent? {
        guard case .reaction(let content) = authoredContents[hash] else { return nil }
        authoredContents[hash] = nil
        return content
    }

    func authoredFile(_ hash: EntryHash) -> FileDescription? {
        guard case .file(let content) = authoredContents[hash] else { return nil }
        authoredContents[hash] = nil
        return content
    }

    /// My message `hash` was stored so: enough to show it without reading it back.
    func noteWritten(_ hash: EntryHash, _ message: WrittenMessage) { writtenMessages[hash] = message }

    func written(_ hash: EntryHash) -> WrittenMessage? { writtenMessages[hash] }

    /// Where my next entry goes, as read before it was made: `insert` takes my head and
    /// every author's held seq from it instead of reading them again (nothing is written
    /// in between).
    func notePosition(_ position: AuthorPosition, in conversation: ConversationID) {
        if heads[conversation] == nil { heads[conversation] = position.held }
        if let head = position.head { authorHeads[conversation] = head }
    }

    /// How many conversations this node may hold without being a member, waiting for the
    /// members entry that adds it.
    static let maxUnjoined = 64

    /// Whether a create entry that does not name this node may be taken: an invitation,
    /// while fewer than `maxUnjoined` conversations are held that this node is not in.
    func mayHoldUnjoined(_ conversation: ConversationID, me: NodeID, db: Database) throws -> Bool {
        guard invitations.contains(conversation) else { return false }
        let count =
            try unjoined
            ?? Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM conversation c
                    WHERE NOT EXISTS (SELECT 1 FROM participant p WHERE p.conversationId = c.id AND p.nodeId = ?)
                    AND NOT EXISTS (SELECT 1 FROM former_member f WHERE f.conversationId = c.id AND f.nodeId = ?)
                    """, arguments: [me.bytes, me.bytes]) ?? 0
        guard count < Self.maxUnjoined else { return false }
        unjoined = count + 1
        return true
    }

    /// Every membership event held of the conversation, kept current as the batch inserts.
    func membershipLog(_ conversation: ConversationID, db: Database) throws -> MembershipLog? {
        if let cached = logs[conversation] { return cached }
        let fetched = try store.membershipLog(conversation, db: db)
        if let fetched { logs[conversation] = fetched }
        return fetched
    }

    /// A membership event was stored: the log grows.
    func noteMembership(_ log: MembershipLog, of conversation: ConversationID) {
        logs[conversation] = log
    }

    /// The key of one epoch, when this node holds it.
    func epochKey(_ conversation: ConversationID, epoch: EntryRef, db: Database) throws -> [UInt8]? {
        if let cached = epochKeys[conversation]?[epoch] { return cached }
        let fetched = try [UInt8].fetchOne(
            db.cachedStatement(sql: "SELECT key FROM epoch_key WHERE conversationId = ? AND author = ? AND seq = ?"),
            arguments: [conversation.bytes, epoch.author.bytes, epoch.seq])
        if let fetched { epochKeys[conversation, default: [:]][epoch] = fetched }
        return fetched
    }

    func noteEpochKey(_ key: [UInt8], conversation: ConversationID, epoch: EntryRef) {
        epochKeys[conversation, default: [:]][epoch] = key
        openingKeys[conversation]?[epoch] = nil
    }

    /// The same key as the cipher takes it: made once per batch, not once per message (each
    /// is a locked allocation of its own).
    func openingKey(_ conversation: ConversationID, epoch: EntryRef, db: Database) throws -> SecureBytes? {
        if let cached = openingKeys[conversation]?[epoch] { return cached }
        guard let key = try epochKey(conversation, epoch: epoch, db: db) else { return nil }
        let opening = SecureBytes(key)
        openingKeys[conversation, default: [:]][epoch] = opening
        return opening
    }

    /// An author's head: its last entry held here, with that entry's frontier (read from
    /// the store only when asked for).
    struct Head {
        let seq: UInt64
        let hash: EntryHash
        let frontier: () throws -> VectorClock
    }

    /// The head an entry this batch inserted left, so that the author's next entry in the
    /// batch need not read it back (nothing else in an append moves a head); for me, before
    /// any, the head my entry's position was read with.
    func inserted(_ conversation: ConversationID, author: NodeID) -> Head? {
        insertedHeads[conversation]?[author] ?? (author == store.me ? authorHeads[conversation] : nil)
    }

    /// An entry the batch inserted: its author's head in the conversation's clock and in
    /// the head rows written when the batch finishes.
    func noteInserted(_ entry: Entry) {
        if heads[entry.conversationID] != nil { heads[entry.conversationID]?[entry.author] = entry.seq }
        grown.insert(entry.conversationID)
        let frontier = entry.frontier
        insertedHeads[entry.conversationID, default: [:]][entry.author] = Head(
            seq: entry.seq, hash: entry.hash, frontier: { frontier })
    }

    /// Writes the head rows the inserts moved: one per author, however many of its entries
    /// the batch took. Until then the batch reads them from `inserted`.
    func writeHeads(db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO head(conversationId, author, seq, hash, frontier) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(conversationId, author) DO UPDATE
                SET seq = excluded.seq, hash = excluded.hash, frontier = excluded.frontier
                """)
        for (conversation, authors) in insertedHeads {
            for (author, head) in authors {
                try statement.execute(arguments: [
                    conversation.bytes, author.bytes, head.seq, head.hash.bytes, try head.frontier().json,
                ])
            }
        }
        insertedHeads = [:]
    }

    /// Each author's held seq in the conversation, kept current as the batch inserts.
    func heads(_ conversation: ConversationID, db: Database) throws -> [NodeID: UInt64] {
        if let cached = heads[conversation] { return cached }
        let fetched = try VectorClock.fetchHeld(db, conversation: conversation).entries
        heads[conversation] = fetched
        return fetched
    }

    /// Authors proven to have forked their log in the conversation (Protocol.md §7.1).
    func forkedAuthors(_ conversation: ConversationID, db: Database) throws -> Set<NodeID> {
        if let cached = forked[conversation] { return cached }
        let fetched = Set(
            try [UInt8].fetchAll(
                db.cachedStatement(sql: "SELECT author FROM fork_proof WHERE conversationId = ?"),
                arguments: [conversation.bytes]
            ).compactMap(NodeID.init(bytes:)))
        forked[conversation] = fetched
        return fetched
    }

    func noteForked(_ conversation: ConversationID, author: NodeID) {
        forked[conversation]?.insert(author)
    }

    /// The whole clock of each conversation the batch added to, as it stands after the batch
    /// (its heads were read before the first insert, `insert` asks for them).
    var grownClocks: [ConversationID: VectorClock] {
        Dictionary(uniqueKeysWithValues: grown.compactMap { id in heads[id].map { (id, VectorClock($0)) } })
    }

    /// Whether the conversation is a room (Protocol.md §18).
    func isRoom(_ conversation: ConversationID, db: Database) throws -> Bool {
        if let cached = rooms[conversation] { return cached }
        let fetched =
            try String.fetchOne(
                db.cachedStatement(sql: "SELECT room FROM conversation WHERE id = ?"), arguments: [conversation.bytes])
            != nil
        rooms[conversation] = fetched
        return fetched
    }

    func noteRoom(_ conversation: ConversationID) { rooms[conversation] = true }

    /// Whether the conversation is a large group (Protocol.md §19).
    func isLarge(_ conversation: ConversationID, db: Database) throws -> Bool {
        if let cached = larges[conversation] { return cached }
        let fetched =
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT large FROM conversation WHERE id = ?"), arguments: [conversation.bytes])
            ?? false
        larges[conversation] = fetched
        return fetched
    }

    func noteLarge(_ conversation: ConversationID) { larges[conversation] = true }

    /// The conversation's creator, whose create entry every other entry's clock covers.
    func creator(_ conversation: ConversationID, db: Database) throws -> NodeID? {
        if let cached = creators[conversation] { return cached }
        let fetched = try [UInt8].fetchOne(
            db.cachedStatement(sql: "SELECT creator FROM conversation WHERE id = ?"), arguments: [conversation.bytes]
        ).flatMap(NodeID.init(bytes:))
        if let fetched { creators[conversation] = fetched }
        return fetched
    }

    /// Whether `author` is blocked here: their messages are stored (logs stay whole) but
    /// must not move the conversation up the list or bring a deleted one back.
    func isBlocked(_ author: NodeID, db: Database) throws -> Bool {
        if let blocked { return blocked.contains(author) }
        let fetched = Set(
            try [UInt8].fetchAll(db.cachedStatement(sql: "SELECT id FROM peer WHERE trust = 'blocked'")).compactMap(
                NodeID.init(bytes:)))
        blocked = fetched
        return fetched.contains(author)
    }

    /// An author's clock is its own to set: a time in the future would pin the
    /// conversation to the top of the list, so activity counts no later than a few minutes
    /// after the message arrived here.
    func noteMessage(_ conversation: ConversationID, at timestamp: Int64) {
        let latest = now.millisecondsSince1970 + Self.clockSkewAllowance
        activity[conversation] = max(activity[conversation] ?? .min, min(timestamp, latest))
    }

    static let clockSkewAllowance: Int64 = 5 * 60 * 1000

    /// Writes what was deferred: each conversation's latest activity, and a new message
    /// brings a deleted conversation back, as in any messenger (archived ones stay archived).
    func flush(db: Database) throws {
        for (conversation, timestamp) in activity {
            try db.cachedStatement(
                sql: "UPDATE conversation SET lastActivityAt = max(lastActivityAt, ?) WHERE id = ?"
            ).execute(arguments: [timestamp, conversation.bytes])
            try db.cachedStatement(
                sql: "UPDATE local_state SET deletedAt = NULL WHERE conversationId = ? AND deletedAt IS NOT NULL"
            ).execute(arguments: [conversation.bytes])
        }
        activity = [:]
    }
}
