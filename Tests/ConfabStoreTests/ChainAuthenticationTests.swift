import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabStore
@testable import ConfabWire

/// An entry is authentic when its author's signature verifies on it or on a later entry
/// of the same batch whose hash chain names it (Protocol.md §7 step 3): one signature check
/// per chain, however long.
@Suite struct ChainAuthenticationTests {
    /// Alice's log: her create entry and `count` messages, as Bob would be sent them.
    private func aliceLog(_ count: Int) throws -> (id: ConversationID, raw: [[UInt8]]) {
        let alice = try makeStore(Keys.alice)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "message 1", now: at(1))
        _ = try alice.sendEach((2...count).map { "message \($0)" }, to: id, now: at(2))
        let raw = try alice.entries(in: id, author: Keys.alice.id, after: 0)
        #expect(raw.count == count + 1)
        return (id, raw)
    }

    /// The signature is the envelope's last field: flipping the last byte breaks it alone.
    private func damaged(_ raw: [UInt8]) -> [UInt8] {
        var copy = raw
        copy[copy.count - 1] ^= 0x01
        return copy
    }

    private func outcomes(_ results: [Result<AppendOutcome, AppendRejection>]) -> [String] {
        results.map { result in
            switch result {
            case .success(.appended): "appended"
            case .success(.duplicate): "duplicate"
            case .failure(let rejection): rejection.category.rawValue
            }
        }
    }

    @Test func aChainOfAHundredEntriesCostsOneSignatureCheck() throws {
        let (id, raw) = try aliceLog(100)
        let bob = try makeStore(Keys.bob)
        #expect(outcomes(try bob.append(batch: raw)) == Array(repeating: "appended", count: 101))
        #expect(bob.signatures.count == 1)
        #expect(try bob.history(id, limit: 200).map(\.text) == (1...100).map { "message \($0)" })
    }

    @Test func eachAuthorsChainIsCheckedAtItsOwnTopAndACopyAddsNoCheck() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "hi", now: at(1))
        try syncBoth(id, alice, bob)
        _ = try bob.sendMessages(["a", "b", "c"], to: id, now: at(2))
        try syncBoth(id, alice, bob)
        _ = try alice.sendMessages(["d", "e"], to: id, now: at(3))
        let relay = try makeStore(Keys.relay)
        let batch = try missingEntries(id, from: alice, to: relay)
        #expect(Set(try batch.map { try EntryCodec.decodeUnverified($0).author }) == [Keys.alice.id, Keys.bob.id])
        _ = try relay.append(batch: batch + batch, keepsOthers: true)
        #expect(relay.signatures.count == 2)
        #expect(try relay.clock(of: id) == alice.clock(of: id))
    }

    @Test func aDamagedSignatureBelowAGoodOneIsTakenAndTheSameEntryAloneIsNot() throws {
        let (id, raw) = try aliceLog(5)
        var batch = raw
        batch[2] = damaged(raw[2])
        // Alone, after its predecessors, it proves nothing yet: refused as badly signed.
        let bob = try makeStore(Keys.bob)
        _ = try bob.append(batch: Array(raw[0...1]))
        #expect(outcomes(try bob.append(batch: [batch[2]])) == ["bad_signature"])
        #expect(try bob.clock(of: id) == VectorClock([Keys.alice.id: 2]))
        // With the entry above it, whose signature covers its hash, it is the same entry
        // every node takes: its content is what Alice signed.
        #expect(outcomes(try bob.append(batch: Array(batch[2...]))) == Array(repeating: "appended", count: 4))
        let carol = try makeStore(Keys.bob)
        #expect(outcomes(try carol.append(batch: raw)) == Array(repeating: "appended", count: 6))
        #expect(try bob.history(id).map(\.text) == carol.history(id).map(\.text))
    }

    @Test func aBadSignatureAtTheTopRefusesEverythingItWouldVouchFor() throws {
        let (id, raw) = try aliceLog(5)
        var batch = raw
        batch[5] = damaged(raw[5])
        let bob = try makeStore(Keys.bob)
        #expect(outcomes(try bob.append(batch: batch)) == Array(repeating: "bad_signature", count: 6))
        #expect(try bob.clock(of: id).isEmpty)
        #expect(try rowCount(bob, "entry") == 0)
    }

    /// Entries of a message held back for their author's rate still vouch for the ones
    /// stored now: the sender ended the chain at an entry it checked, not at the last one
    /// this node keeps.
    @Test func entriesHeldBackStillVouchForTheOnesStoredNow() throws {
        let (id, raw) = try aliceLog(5)
        var message = raw
        message[3] = damaged(raw[3])
        let stored = Array(message[0...3])
        let bob = try makeStore(Keys.bob)
        #expect(outcomes(try bob.append(batch: stored)) == Array(repeating: "bad_signature", count: 4))
        #expect(outcomes(try bob.append(batch: stored, vouchers: message)) == Array(repeating: "appended", count: 4))
        #expect(try bob.clock(of: id) == VectorClock([Keys.alice.id: 4]))
    }

    /// A voucher is checked like any chain top: a successor Mallory made up, held back
    /// beside Alice's entries, vouches for nothing, and the entry it claims to follow falls
    /// with it.
    @Test func aMadeUpVoucherVouchesForNothing() throws {
        let (id, raw) = try aliceLog(5)
        let below = try EntryCodec.decodeUnverified(raw[3])
        let next = try EntryCodec.decodeUnverified(raw[4])
        var stored = Array(raw[0...3])
        stored[3] = damaged(raw[3])
        // Alice's next entry, its text changed and its signature kept: it names raw[3].
        let madeUp = EntryCodec.encode(
            Entry(
                conversationID: id, author: Keys.alice.id, seq: next.seq, previous: below.hash,
                timestamp: next.timestamp + 1, clock: next.clock, body: next.body,
                content: contentWithTimestamp(next, next.timestamp + 1), signature: next.signature))
        let bob = try makeStore(Keys.bob)
        #expect(
            outcomes(try bob.append(batch: stored, vouchers: [madeUp])) == Array(repeating: "bad_signature", count: 4))
        #expect(try bob.clock(of: id).isEmpty)
    }

    /// `entry`'s content with another timestamp: content its author never signed.
    private func contentWithTimestamp(_ entry: Entry, _ timestamp: Int64) -> [UInt8] {
        var content = try! Confab_V1_EntryContent(serializedBytes: entry.content)
        content.timestampMs = timestamp
        return try! content.serializedBytes()
    }

    /// Someone else's content with Alice's name on it: no signature of hers names its hash,
    /// so riding in her chain gets it nothing. It is checked by itself; Alice's entries it
    /// claims to follow are checked through it (the first entry in a message that names a
    /// predecessor is the one that vouches for it), so the liar's message is refused whole,
    /// and Alice's entries come from an honest peer.
    @Test func aForgedEntryInsideAGoodChainIsCheckedByItselfAndRefused() throws {
        let (id, raw) = try aliceLog(4)
        let held = try EntryCodec.decodeUnverified(raw[2])
        let forged = try EntryCodec.decodeUnverified(
            EntryCodec.encode(
                EntryCodec.sign(
                    EntryDraft(
                        conversationID: id, seq: 3, previous: held.previous, timestamp: held.timestamp,
                        clock: held.clock, body: .message(sealed: [UInt8](repeating: 7, count: 64))),
                    with: Keys.mallory)))
        // Mallory's entry claiming Alice as its author: her signature, Alice's key.
        let claimed = EntryCodec.encode(
            Entry(
                conversationID: id, author: Keys.alice.id, seq: 3, previous: held.previous, timestamp: held.timestamp,
                clock: held.clock, body: forged.body, content: contentClaiming(forged, author: Keys.alice.id),
                signature: forged.signature))
        let bob = try makeStore(Keys.bob)
        let results = try bob.append(batch: [raw[0], raw[1], claimed, raw[3]])
        #expect(outcomes(results) == ["bad_signature", "bad_signature", "bad_signature", "gap"])
        #expect(try bob.clock(of: id).isEmpty)
        #expect(outcomes(try bob.append(batch: raw)) == Array(repeating: "appended", count: 5))
    }

    /// `forged`'s content with its author field replaced.
    private func contentClaiming(_ entry: Entry, author: NodeID) -> [UInt8] {
        var content = try! Confab_V1_EntryContent(serializedBytes: entry.content)
        content.author = Data(author.bytes)
        return try! content.serializedBytes()
    }

    /// A fork found against an entry taken on a later one's signature: when that entry's own
    /// signature is bad, the pair is no proof anyone else could check, so none is kept or
    /// sent; the other branch is refused all the same.
    @Test func aForkAgainstAnEntryWithABadSignatureOfItsOwnMakesNoProof() throws {
        let alice = try makeStore(Keys.alice)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "one", now: at(1))
        let fork = try makeStore(Keys.alice)
        _ = try fork.append(batch: alice.entries(in: id, author: Keys.alice.id, after: 0))
        _ = try alice.sendEach(["two", "three"], to: id, now: at(2))
        let raw = try alice.entries(in: id, author: Keys.alice.id, after: 0)
        let other = try author(
            fork, in: id, body: try sealedMessage("two, again", fork, in: id, author: Keys.alice.id, seq: 3))

        let bob = try makeStore(Keys.bob)
        _ = try bob.append(batch: [raw[0], raw[1], damaged(raw[2]), raw[3]])
        #expect(try bob.clock(of: id) == VectorClock([Keys.alice.id: 4]))
        let refused = try bob.append(batch: [other])
        #expect(outcomes(refused) == ["fork"])
        #expect(try bob.forkedAuthors(in: id).isEmpty)

        // The same fork against a copy with its own signature whole is proved as ever.
        let carol = try makeStore(Keys.bob)
        _ = try carol.append(batch: raw)
        #expect(outcomes(try carol.append(batch: [other])) == ["fork"])
        #expect(try carol.forkedAuthors(in: id).map(\.seq) == [3])
    }
}
