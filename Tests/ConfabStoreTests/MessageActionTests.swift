import ConfabCrypto
import ConfabModel
import Foundation
import GRDB
import Testing

@testable import ConfabStore
@testable import ConfabWire

/// Edit and delete for everyone (Protocol.md §4.5, §7): the author's own messages only,
/// the latest edit wins in the author's log order on every node, and a deletion takes the
/// text, the edit trail and the search index's words out of every store.
@Suite("Message actions")
struct MessageActionTests {
    private func group() throws -> (alice: ConfabStore, bob: ConfabStore, mallory: ConfabStore, id: ConversationID) {
        try aliceBobMallory(firstMessage: "meet at noon")
    }

    /// The seq of the first message in a conversation alice created with a first message.
    private let firstSeq: UInt64 = 2

    /// An entry of `store`'s owner signed as is, without storing it there first.
    private func signed(
        _ store: ConfabStore, in id: ConversationID, body: EntryBody, now: Date = at(50)
    ) throws
        -> [UInt8]
    {
        EntryCodec.encode(EntryCodec.sign(try nextDraft(store, in: id, body: body, now: now), with: store.identity))
    }

    private func sealedEdit(
        _ text: String, _ store: ConfabStore, in id: ConversationID, target: UInt64
    ) throws -> EntryBody {
        let seq = try store.clock(of: id)[store.me] + 1
        guard case .message(let sealed) = try sealedMessage(text, store, in: id, author: store.me, seq: seq) else {
            preconditionFailure()
        }
        return .edit(target: target, sealed: sealed)
    }

    @Test func anEditShowsTheLatestTextMarkedEditedWithTheTrailEverywhere() throws {
        let (alice, bob, _, id) = try group()
        _ = try alice.editMessage(firstSeq, in: id, text: "meet at one", now: at(10))
        _ = try alice.editMessage(firstSeq, in: id, text: "meet at two", now: at(20))
        try sync(id, from: alice, to: bob)
        for store in [alice, bob] {
            let message = try #require(try store.history(id).first)
            #expect(message.seq == firstSeq)
            #expect(message.text == "meet at two")
            #expect(message.editedAt == at(20))
            #expect(message.edits.map(\.text) == ["meet at noon", "meet at one"])
            #expect(message.edits.map(\.writtenAt) == [at(1), at(10)])
            #expect(try store.history(id).count == 1, "an edit is not a message of its own")
            // Search finds the latest text only.
            #expect(try store.search("two").compactMap(\.message?.text) == ["meet at two"])
            #expect(try store.search("noon").isEmpty)
            #expect(try store.search("one").isEmpty)
            #expect(try store.conversation(id)?.lastMessage?.text == "meet at two")
        }
    }

    @Test func editsConvergeWhateverTheArrivalOrder() throws {
        let (alice, bob, mallory, id) = try group()
        _ = try alice.editMessage(firstSeq, in: id, text: "version two", now: at(10))
        _ = try alice.editMessage(firstSeq, in: id, text: "version three", now: at(5))  // an earlier wall clock
        let entries = try missingEntries(id, from: alice, to: bob)
        #expect(entries.count == 2)
        // Bob takes them in order; Mallory gets the later one first (refused as a gap, a
        // recoverable rejection the sync engine retries), then both.
        _ = try bob.append(batch: entries)
        let early = try mallory.append(batch: [entries[1]])
        #expect(early.first.map { (try? $0.get()) == nil } == true)
        _ = try mallory.append(batch: entries)
        for store in [alice, bob, mallory] {
            let message = try #require(try store.history(id).first)
            #expect(message.text == "version three", "the author's log order decides, not the wall clock")
            #expect(message.edits.map(\.text) == ["meet at noon", "version two"])
        }
    }

    @Test func onlyOwnMessagesCanBeEditedOrDeleted() throws {
        let (alice, bob, _, id) = try group()
        // Bob's own API: no message of his at alice's seq.
        #expect(throws: StoreError.self) { try bob.editMessage(firstSeq, in: id, text: "hijacked") }
        #expect(throws: StoreError.self) { try bob.unsendMessage(firstSeq, in: id) }
        // The format cannot name another author's message: an action's target is a seq in
        // its own author's log. Pointing at an entry that is not a message (here Bob's own
        // receipt) is refused by every node, relays too, without ending a session.
        let receipt = try #require(try bob.markRead(id, now: at(3)))
        try sync(id, from: bob, to: alice)
        let relay = try makeStore(Keys.relay)
        try sync(id, from: alice, to: relay, asRelay: true)
        for body in [try sealedEdit("hijacked", bob, in: id, target: receipt.seq), .unsend(target: receipt.seq)] {
            let bytes = try signed(bob, in: id, body: body)
            for (store, asRelay) in [(alice, false), (relay, true)] {
                let result = try #require(try store.append(batch: [bytes], keepsOthers: asRelay).first)
                guard case .failure(let rejection) = result else {
                    Issue.record("an action on a receipt was stored")
                    continue
                }
                #expect(rejection.category == .badTarget)
                #expect(!rejection.isSessionError)
            }
        }
        #expect(try alice.history(id).first?.text == "meet at noon")
    }

    @Test func aForgedActionInAnotherAuthorsNameIsABadSignature() throws {
        let (alice, bob, mallory, id) = try group()
        // Mallory signs an unsend that claims Alice as its author.
        var draft = try nextDraft(alice, in: id, body: .unsend(target: firstSeq))
        draft.timestamp = at(9).millisecondsSince1970
        let genuine = EntryCodec.sign(draft, with: alice.identity)
        let forged = EntryCodec.encode(
            Entry(
                conversationID: id, author: alice.me, seq: genuine.seq, previous: genuine.previous,
                timestamp: genuine.timestamp, clock: genuine.clock, body: genuine.body, content: genuine.content,
                signature: mallory.identity.sign(EntryDomain.signature + genuine.content)))
        for store in [bob, mallory] {
            #expect(throws: AppendRejection.self) { try store.append(forged) }
            #expect(try store.history(id).first?.text == "meet at noon")
        }
    }

    @Test func theTargetMustPrecedeTheActionInItsOwnLog() throws {
        let (alice, _, _, id) = try group()
        let seq = try alice.clock(of: id)[alice.me] + 1
        for target: UInt64 in [0, seq, seq + 5] {
            let bytes = try signed(alice, in: id, body: .unsend(target: target))
            #expect(throws: WireError.self) { try EntryCodec.decode(bytes) }
        }
    }

    @Test func aDeletedMessageCannotBeEditedOrDeletedAgain() throws {
        let (alice, bob, _, id) = try group()
        _ = try alice.unsendMessage(firstSeq, in: id, now: at(10))
        try sync(id, from: alice, to: bob)
        #expect(throws: StoreError.self) { try alice.editMessage(firstSeq, in: id, text: "back") }
        #expect(throws: StoreError.self) { try alice.unsendMessage(firstSeq, in: id) }
        #expect(try alice.lastOwnMessageSeq(in: id) == nil)
        for body in [try sealedEdit("back", alice, in: id, target: firstSeq), .unsend(target: firstSeq)] {
            let result = try #require(try bob.append(batch: [try signed(alice, in: id, body: body)]).first)
            guard case .failure(let rejection) = result else {
                Issue.record("an action on a deleted message was stored")
                continue
            }
            #expect(rejection.category == .badTarget)
            #expect(!rejection.isSessionError)
        }
        let message = try #require(try bob.history(id).first)
        #expect(message.isDeleted)
        #expect(message.text == nil)
    }

    /// The plaintext is gone from the store file itself, not only from the API: the message
    /// table, the edit trail, the search index, and (after a checkpoint) the file's bytes.
    @Test func deletionRemovesThePlaintextFromTheStoreFile() throws {
        let directory = try TemporaryDirectory()
        let alice = try makeStore(Keys.alice)
        let (id, _) = try alice.createConversation(
            with: [Keys.bob.id], title: nil, firstMessage: "zanzibar codeword", now: at(1))
        _ = try alice.editMessage(2, in: id, text: "zanzibar codeword quokka", now: at(2))
        _ = try alice.sendMessage("keep this one", to: id, now: at(3))
        do {
            let bob = try ConfabStore(path: directory.databasePath, identity: Keys.bob)
            try sync(id, from: alice, to: bob)
            #expect(try bob.search("zanzibar").count == 1)
            _ = try alice.unsendMessage(2, in: id, now: at(4))
            try sync(id, from: alice, to: bob)
            let messages = try bob.history(id)
            #expect(messages.map(\.text) == [nil, "keep this one"])
            #expect(messages.first?.isDeleted == true)
            #expect(messages.first?.edits.isEmpty == true)
            #expect(try bob.search("zanzibar").isEmpty)
            #expect(try bob.search("quokka").isEmpty)
            #expect(try bob.conversation(id)?.lastMessage?.text == "keep this one")
        }
        let raw = try DatabaseQueue(path: directory.databasePath)
        try raw.writeWithoutTransaction { db in
            #expect(
                try String.fetchAll(db, sql: "SELECT text FROM message WHERE text IS NOT NULL") == ["keep this one"])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM message_version") == 0)
            for word in ["zanzibar", "quokka", "codeword"] {
                #expect(
                    try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM message_fts WHERE message_fts MATCH ?", arguments: [word])
                        == 0)
            }
            #expect(
                try Int.fetchOne(db, sql: "SELECT count(*) FROM message_fts WHERE message_fts MATCH 'keep'") == 1)
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try raw.close()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: directory.databasePath))
        bytes += (try? Data(contentsOf: URL(fileURLWithPath: directory.databasePath + "-wal"))) ?? Data()
        for word in ["zanzibar", "quokka"] {
            #expect(bytes.range(of: Data(word.utf8)) == nil, "\(word) is still in the store's bytes")
        }
        #expect(bytes.range(of: Data("keep this one".utf8)) != nil)
    }
}
