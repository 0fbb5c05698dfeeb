import ConfabCrypto
import ConfabModel
import ConfabTestSupport
import ConfabWire
import Foundation
import GRDB
import Testing

@testable import ConfabStore

/// Fixed identities, so every run sees the same keys.
enum Keys {
    static let alice = try! SigningKeyPair(seed: [UInt8](repeating: 0xA1, count: 32))
    static let bob = try! SigningKeyPair(seed: [UInt8](repeating: 0xB2, count: 32))
    static let carol = try! SigningKeyPair(seed: [UInt8](repeating: 0xC3, count: 32))
    static let mallory = try! SigningKeyPair(seed: [UInt8](repeating: 0xD4, count: 32))
    static let relay = try! SigningKeyPair(seed: [UInt8](repeating: 0xE5, count: 32))
}

extension SigningKeyPair {
    var id: NodeID { NodeID(publicKey) }
}

func makeStore(_ key: SigningKeyPair) throws -> ConfabStore {
    try ConfabStore.inMemory(identity: key)
}

/// A scratch directory removed when the test ends.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("confab-store-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    var databasePath: String { url.appendingPathComponent("confab.sqlite").path }
}

/// Deterministic wall-clock times: `at(n)` is n seconds after a fixed epoch.
func at(_ seconds: Int) -> Date {
    Date(timeIntervalSince1970: 1_900_000_000 + Double(seconds))
}

/// What a sync round moves from `source` to `target`: every entry the target's clock says
/// it lacks, each author's in seq order, the create entry first so the target learns of the
/// conversation before anything in it.
func missingEntries(
    _ conversation: ConversationID, from source: ConfabStore, to target: ConfabStore
) throws -> [[UInt8]] {
    let theirs = try target.clock(of: conversation)
    var batch: [[UInt8]] = []
    for (author, seq) in try source.clock(of: conversation).sortedEntries where seq > theirs[author] {
        batch += try source.entries(in: conversation, author: author, after: theirs[author])
    }
    // In display order, as a node sends them: what an entry's clock names goes first.
    let keys = batch.map { (try? EntryCodec.decodeUnverified($0))?.orderKey }
    return zip(batch, keys).sorted { a, b in
        guard let x = a.1, let y = b.1 else { return a.1 != nil }
        return x < y
    }.map(\.0)
}

/// One direction of a sync round, through raw bytes as on the wire. With `ack` the target
/// re-announces its clock, which is how the source learns its entries are held elsewhere.
@discardableResult
func sync(
    _ conversation: ConversationID, from source: ConfabStore, to target: ConfabStore, ack: Bool = true,
    asRelay: Bool = false, invited: Bool = false, now: Date = at(0),
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> Int {
    let batch = try missingEntries(conversation, from: source, to: target)
    var appended = 0
    for result in try target.append(
        batch: batch, now: now, keepsOthers: asRelay, invitations: invited ? [conversation] : [])
    {
        switch result {
        case .success(.appended): appended += 1
        case .success(.duplicate): break
        case .failure(let rejection):
            Issue.record("sync rejected an entry: \(rejection)", sourceLocation: sourceLocation)
        }
    }
    if ack {
        try source.recordPeerClock(
            try target.clock(of: conversation), peer: target.me, conversation: conversation,
            sentUpTo: try source.clock(of: conversation)[source.me], now: now)
    }
    return appended
}

/// Both directions, so the two stores end with identical clocks.
func syncBoth(_ conversation: ConversationID, _ a: ConfabStore, _ b: ConfabStore, now: Date = at(0)) throws {
    try sync(conversation, from: a, to: b, now: now)
    try sync(conversation, from: b, to: a, now: now)
}

func conversationKey(_ store: ConfabStore, _ conversation: ConversationID) throws -> SecureBytes {
    let bytes = try store.writer.read { db in
        try [UInt8].fetchOne(
            db, sql: "SELECT conversationKey FROM conversation WHERE id = ?", arguments: [conversation.bytes])
    }
    return SecureBytes(try #require(bytes))
}

/// The draft of the store owner's next entry, filled in exactly as its own authoring
/// would, so tests can break one thing in it and sign it as that author.
func nextDraft(
    _ store: ConfabStore, in conversation: ConversationID, body: EntryBody, now: Date = at(0)
) throws -> EntryDraft {
    let clock = try store.clock(of: conversation)
    let seq = clock[store.me] + 1
    var previous: EntryHash?
    if seq > 1 {
        let raw = try store.entries(in: conversation, author: store.me, after: seq - 2, limit: 1)
        previous = try EntryCodec.decodeUnverified(try #require(raw.first)).hash
    }
    return EntryDraft(
        conversationID: conversation, seq: seq, previous: previous, timestamp: now.millisecondsSince1970, clock: clock,
        body: body)
}

/// Authors an entry outside the store's API (say, a receipt with only a delivered clock),
/// stores it in its author's store like any received entry, and returns its bytes.
@discardableResult
func author(_ store: ConfabStore, in conversation: ConversationID, body: EntryBody, now: Date = at(0)) throws -> [UInt8]
{
    let entry = EntryCodec.sign(try nextDraft(store, in: conversation, body: body, now: now), with: store.identity)
    let bytes = EntryCodec.encode(entry)
    #expect(try store.append(bytes) == .appended(entry))
    return bytes
}

func sealedMessage(
    _ text: String, _ store: ConfabStore, in conversation: ConversationID, author: NodeID, seq: UInt64
) throws -> EntryBody {
    .message(
        sealed: try ConversationCipher.sealMessage(
            text, key: try conversationKey(store, conversation), conversationID: conversation, author: author, seq: seq)
    )
}

/// Everything a rejected append must leave untouched: row counts of every table and every
/// conversation's clock.
struct StoreSnapshot: Equatable {
    let counts: [String: Int]
    let clocks: [ConversationID: VectorClock]
}

/// Evidence (fork proofs, own-log evidence) is kept from rejections on purpose, so its
/// tables are not listed here.
let storeTables = [
    "meta", "peer", "conversation", "participant", "entry", "head", "message", "message_fts", "conversation_fts",
    "receipt", "read_mark", "local_state", "outbox",
]

func snapshot(_ store: ConfabStore) throws -> StoreSnapshot {
    let counts = try store.writer.read { db in
        var counts: [String: Int] = [:]
        for table in storeTables {
            counts[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? -1
        }
        return counts
    }
    return StoreSnapshot(counts: counts, clocks: try store.allClocks())
}

func rowCount(_ store: ConfabStore, _ table: String) throws -> Int {
    try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? -1 }
}

/// Offers `bytes` and checks the store refuses them for `category` without changing
/// anything.
@discardableResult
func expectAppendRejected(
    _ bytes: [UInt8], by store: ConfabStore, _ category: AppendRejection.Category,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> AppendRejection? {
    let before = try snapshot(store)
    let rejection = #expect(throws: AppendRejection.self, sourceLocation: sourceLocation) { try store.append(bytes) }
    #expect(rejection?.category == category, "\(String(describing: rejection))", sourceLocation: sourceLocation)
    #expect(try snapshot(store) == before, "a rejected entry changed the store", sourceLocation: sourceLocation)
    return rejection
}

extension Array where Element == UInt8 {
    func contains(subsequence needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}

/// Alice's group with Bob and Mallory, her `firstMessage` at seq 2, held by all three.
func aliceBobMallory(
    firstMessage: String
) throws -> (alice: ConfabStore, bob: ConfabStore, mallory: ConfabStore, id: ConversationID) {
    let alice = try makeStore(Keys.alice)
    let bob = try makeStore(Keys.bob)
    let mallory = try makeStore(Keys.mallory)
    let (id, _) = try alice.createConversation(
        with: [Keys.bob.id, Keys.mallory.id], title: nil, firstMessage: firstMessage, now: at(1))
    try sync(id, from: alice, to: bob)
    try sync(id, from: alice, to: mallory)
    return (alice, bob, mallory, id)
}

extension ConfabStore {
    /// Each message in a commit of its own, so each carries its own signature (as `send` one
    /// at a time writes them), for tests that take entries one by one or damage one
    /// signature; `sendMessages` signs only some of a run (Protocol.md §4.3).
    func sendEach(_ texts: [String], to conversation: ConversationID, now: Date) throws -> [Entry] {
        try texts.map { try sendMessage($0, to: conversation, now: now) }
    }
}
