import ConfabCrypto
import ConfabModel
import Foundation
import GRDB
import Testing

@testable import ConfabStore
@testable import ConfabWire

/// Membership changes and key epochs (Protocol.md §4.8): adds, removals by the admin,
/// leaves, each (but a leave) with a fresh key sealed to the members after it; the same
/// members and key on every node whatever the order; forged changes refused everywhere.
@Suite("Membership")
struct MembershipTests {
    /// alice (the creator, so the admin) and bob, with a first message.
    private func pair() throws -> (alice: ConfabStore, bob: ConfabStore, id: ConversationID) {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        try alice.setDisplayName("Alice")
        try bob.setDisplayName("Bob")
        // As a Hello would have introduced them.
        try alice.notePeerSeen(Keys.bob.id, suggestedName: "Bob", address: nil)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "before carol", now: at(1))
        try sync(id, from: alice, to: bob)
        return (alice, bob, id)
    }

    /// `pair()`, and carol added by alice (no history), everyone holding everything.
    private func trio() throws -> (alice: ConfabStore, bob: ConfabStore, carol: ConfabStore, id: ConversationID) {
        let (alice, bob, id) = try pair()
        let carol = try makeStore(Keys.carol)
        _ = try alice.changeMembers(of: id, add: [Keys.carol.id], now: at(2))
        try sync(id, from: alice, to: bob)
        try sync(id, from: alice, to: carol, invited: true)
        return (alice, bob, carol, id)
    }

    /// A members entry of `store`'s owner, signed as is and not stored: its next entry,
    /// sealed to `keys` (whatever the rules say), with `names` sealed under the new key.
    private func forgedChange(
        by store: ConfabStore, in id: ConversationID, add: [NodeID] = [], remove: [NodeID] = [],
        sealedTo keys: [NodeID],
        names: [(key: NodeID, name: String)] = []
    ) throws -> [UInt8] {
        let seq = try store.clock(of: id)[store.me] + 1
        let epoch = try MembershipCipher.makeEpoch(for: keys, conversationID: id, author: store.me, seq: seq)
        let sealedNames = try MembershipCipher.sealNames(
            names, key: epoch.key, conversationID: id, author: store.me, seq: seq)
        let body = MembersBody(
            add: add, remove: remove, keys: epoch.keys, keyCommitment: epoch.commitment, sealedNames: sealedNames)
        return EntryCodec.encode(
            EntryCodec.sign(try nextDraft(store, in: id, body: .members(body), now: at(5)), with: store.identity))
    }

    private func members(_ store: ConfabStore, _ id: ConversationID) throws -> [NodeID] {
        try store.participants(of: id)
    }

    private func texts(_ store: ConfabStore, _ id: ConversationID) throws -> [String] {
        try store.history(id).compactMap(\.text)
    }

    private func epochKeys(_ store: ConfabStore, _ id: ConversationID) throws -> [[UInt8]] {
        try store.writer.read { db in
            try [UInt8].fetchAll(
                db, sql: "SELECT key FROM epoch_key WHERE conversationId = ? ORDER BY author, seq",
                arguments: [id.bytes])
        }
    }

    @Test func anAddedMemberReadsFromItsJoiningOnAndEveryoneSeesTheNewMembers() throws {
        let (alice, bob, id) = try pair()
        let carol = try makeStore(Keys.carol)
        _ = try alice.changeMembers(of: id, add: [Keys.carol.id], now: at(2))
        _ = try alice.sendMessage("after carol", to: id, now: at(3))
        try sync(id, from: alice, to: bob)
        try sync(id, from: alice, to: carol, invited: true)
        for store in [alice, bob, carol] {
            #expect(try members(store, id) == [Keys.alice.id, Keys.bob.id, Keys.carol.id])
        }
        #expect(try texts(alice, id) == ["before carol", "after carol"])
        #expect(try texts(bob, id) == ["before carol", "after carol"])
        #expect(try texts(carol, id) == ["after carol"], "written before carol joined: sealed to an epoch without her")
        // The create's key never reached carol; the add's key is the same everywhere.
        #expect(try epochKeys(carol, id).count == 1)
        #expect(try Set(epochKeys(carol, id)).isSubset(of: Set(epochKeys(bob, id))))
        // Names travel with the membership: carol knows alice and bob by their own names.
        #expect(try carol.peer(Keys.alice.id)?.name == "Alice")
        #expect(try carol.peer(Keys.bob.id)?.name == "Bob")
        // Carol writes in the new epoch, and alice and bob read it.
        _ = try carol.sendMessage("hi all", to: id, now: at(4))
        try sync(id, from: carol, to: alice)
        try sync(id, from: carol, to: bob)
        #expect(try texts(bob, id).last == "hi all")
    }

    @Test func reactionsAreSealedInTheEpochInForceAndReadWhenItsKeyArrives() throws {
        let (alice, bob, id) = try pair()
        let before = try #require(try alice.history(id).first { $0.text == "before carol" }).ref
        _ = try bob.react("👍", to: before, in: id, now: at(2))
        try sync(id, from: bob, to: alice)
        // Added with the history: the reaction came before the key that opens it (in the
        // add's causal past), and is read once the add hands that key over.
        let carol = try makeStore(Keys.carol)
        _ = try alice.changeMembers(of: id, add: [Keys.carol.id], shareHistory: true, now: at(3))
        try sync(id, from: alice, to: bob)
        try sync(id, from: alice, to: carol, invited: true)
        func reactions(_ store: ConfabStore, on ref: MessageRef) throws -> [String] {
            try store.history(id).first { $0.ref == ref }?.reactions.map { "\($0.emoji) \($0.reactors.count)" } ?? []
        }
        #expect(try reactions(carol, on: before) == ["👍 1"])
        // A reaction in the new epoch: sealed under the add's key, read by everyone in it.
        _ = try carol.react("🎉", to: before, in: id, now: at(4))
        try sync(id, from: carol, to: alice)
        try sync(id, from: carol, to: bob)
        for store in [alice, bob, carol] {
            #expect(
                try reactions(store, on: before) == ["👍 1", "🎉 1"] || reactions(store, on: before) == ["🎉 1", "👍 1"])
        }
    }

    @Test func anAddWithHistoryGivesTheEarlierKeys() throws {
        let (alice, _, id) = try pair()
        let carol = try makeStore(Keys.carol)
        _ = try alice.changeMembers(of: id, add: [Keys.carol.id], shareHistory: true, now: at(2))
        try sync(id, from: alice, to: carol, invited: true)
        #expect(try texts(carol, id) == ["before carol"])
        #expect(try epochKeys(carol, id).count == 2)
    }

    /// The create entry holds the first epoch's key commitment. Taken on the strength of
    /// the entries above it (Protocol.md §7 step 3), its own signature may be bad; the key
    /// shared with the history is still checked against it, as every node takes it.
    @Test func anAddWithHistoryGivesTheKeysAlsoWhenTheCreateCameOnTheChainAlone() throws {
        let (alice, _, id) = try pair()
        let carol = try makeStore(Keys.carol)
        _ = try alice.changeMembers(of: id, add: [Keys.carol.id], shareHistory: true, now: at(2))
        var batch = try missingEntries(id, from: alice, to: carol)
        batch[0][batch[0].count - 1] ^= 0x01
        #expect(try carol.append(batch: batch, invitations: [id]).allSatisfy { (try? $0.get()) != nil })
        #expect(try texts(carol, id) == ["before carol"])
        #expect(try epochKeys(carol, id).count == 2)
    }

    @Test func aConversationNotNamingMeIsTakenOnlyAsAnInvitation() throws {
        let (alice, _, id) = try pair()
        let carol = try makeStore(Keys.carol)
        let batch = try missingEntries(id, from: alice, to: carol)
        let results = try carol.append(batch: batch)
        guard case .failure(let rejection) = try #require(results.first) else {
            Issue.record("a create not naming carol was taken without an invitation")
            return
        }
        #expect(rejection.category == .notMember)
        // Invited but never added: held, and not among carol's conversations.
        try sync(id, from: alice, to: carol, invited: true)
        #expect(try carol.conversations().isEmpty)
        #expect(throws: StoreError.self) { try carol.sendMessage("let me in", to: id) }
    }

    @Test func aRemovedMemberCannotReadWhatIsWrittenAfter() throws {
        let (alice, bob, carol, id) = try trio()
        _ = try alice.changeMembers(of: id, remove: [Keys.bob.id], now: at(3))
        _ = try alice.sendMessage("bob must not read this", to: id, now: at(4))
        // Even a sender that ignores the cap and hands bob everything gives him ciphertext only.
        try sync(id, from: alice, to: bob)
        try sync(id, from: alice, to: carol)
        #expect(try members(bob, id) == [Keys.alice.id, Keys.carol.id])
        #expect(try texts(carol, id).last == "bob must not read this")
        #expect(try !texts(bob, id).contains("bob must not read this"))
        #expect(try bob.clock(of: id) == alice.clock(of: id), "bob holds the entry, sealed")
        #expect(try epochKeys(bob, id).count == 2, "the create's and the add's; not the removal's")
        #expect(throws: StoreError.self) { try bob.sendMessage("still here?", to: id) }
        // What a peer would offer him: the conversation up to his removal only.
        guard case .upTo(let cap) = try alice.sharing(id, with: Keys.bob.id) else {
            Issue.record("bob should be a former member")
            return
        }
        #expect(cap[Keys.alice.id] == 4, "create, message, add, removal")
        #expect(try alice.sharing(id, with: Keys.carol.id) == .everything)
    }

    @Test func aRemovalByAnyoneButTheAdminIsRefusedEverywhere() throws {
        let (alice, bob, id) = try pair()
        let carol = try makeStore(Keys.carol)
        let relay = try makeStore(Keys.relay)
        _ = try alice.changeMembers(of: id, add: [Keys.carol.id], now: at(2))
        try sync(id, from: alice, to: bob)
        try sync(id, from: alice, to: carol, invited: true)
        try sync(id, from: alice, to: relay, asRelay: true)
        #expect(throws: StoreError.self) { try bob.changeMembers(of: id, remove: [Keys.carol.id]) }
        // Bob signs the removal himself, correctly sealed to alice and him.
        let forged = try forgedChange(
            by: bob, in: id, remove: [Keys.carol.id], sealedTo: [Keys.alice.id, Keys.bob.id])
        for store in [alice, carol, relay, bob] {
            let rejection = try expectAppendRejected(forged, by: store, .badMembership)
            #expect(rejection?.isSessionError == false)
        }
        #expect(try members(carol, id).contains(Keys.carol.id))
    }

    @Test func anAddSealedToTheWrongKeysIsRefused() throws {
        let (alice, bob, id) = try pair()
        // Adds carol, but seals the new key to mallory too: a member smuggling in a reader.
        let forged = try forgedChange(
            by: bob, in: id, add: [Keys.carol.id],
            sealedTo: [Keys.alice.id, Keys.bob.id, Keys.carol.id, Keys.mallory.id])
        try expectAppendRejected(forged, by: alice, .badMembership)
    }

    @Test func aLeaverCannotWriteAndTheNextWriterRekeys() throws {
        let (alice, bob, carol, id) = try trio()
        _ = try bob.leave(id, now: at(3))
        try sync(id, from: bob, to: alice)
        try sync(id, from: bob, to: carol)
        #expect(try members(alice, id) == [Keys.alice.id, Keys.carol.id])
        #expect(throws: StoreError.self) { try bob.sendMessage("one more", to: id) }
        let before = try epochKeys(alice, id).count
        _ = try alice.sendMessage("without bob", to: id, now: at(4))
        #expect(try epochKeys(alice, id).count == before + 1, "a rekey came first")
        try sync(id, from: alice, to: carol)
        try sync(id, from: alice, to: bob)
        #expect(try texts(carol, id).last == "without bob")
        #expect(try !texts(bob, id).contains("without bob"))
    }

    @Test func aReactionOrFileWrittenWhileARekeyWasDueIsRefusedAsAMessageIs() throws {
        let (alice, bob, carol, id) = try trio()
        let welcome = try alice.sendMessage("welcome carol", to: id, now: at(3))
        try sync(id, from: alice, to: carol)
        try sync(id, from: alice, to: bob)
        _ = try bob.leave(id, now: at(3))
        try sync(id, from: bob, to: alice)
        try sync(id, from: bob, to: carol)
        // Carol writes without the rekey her own node would put first: sealed under the key
        // of the epoch bob could read, which is no longer in force.
        let key = try epochKeys(carol, id).last.map(SecureBytes.init)
        let stale = try #require(key)
        let target = MessageRef(author: welcome.author, seq: welcome.seq)
        let seq = try carol.clock(of: id)[Keys.carol.id] + 1
        let reaction = EntryBody.react(
            sealed: try ConversationCipher.sealReaction(
                ReactionContent(target: target, emoji: "👍", removed: false), key: stale, conversationID: id,
                author: Keys.carol.id, seq: seq))
        let layout = try #require(FileLayout(size: 100, chunkSize: 1 << 14))
        let manifest = Hash.blake2b([1], length: 32)
        let file = EntryBody.file(
            FileBody(
                sealed: try FileCipher.sealDescription(
                    FileDescription(
                        name: "stale.txt", key: [UInt8](repeating: 9, count: 32),
                        sha256: [UInt8](repeating: 1, count: 32)),
                    key: stale, conversationID: id, author: Keys.carol.id, seq: seq),
                layout: layout, fileID: FileCipher.fileID(layout: layout, manifest: manifest)))
        for body in [reaction, file] {
            let forged = EntryCodec.encode(
                EntryCodec.sign(try nextDraft(carol, in: id, body: body, now: at(4)), with: Keys.carol))
            try expectAppendRejected(forged, by: alice, .badMembership)
        }
        // Her own node rekeys first, and the same reaction is taken.
        let taken = try carol.react("👍", to: target, in: id, now: at(5))
        try sync(id, from: carol, to: alice)
        #expect(try alice.reaction(in: id, reactor: Keys.carol.id, seq: taken.seq)?.target == target)
    }

    @Test func aChangeArrivingBeforeTheChangeItFollowsWaitsForIt() throws {
        let (alice, bob, carol, id) = try trio()
        _ = try carol.leave(id, now: at(3))
        try sync(id, from: carol, to: alice)
        _ = try alice.sendMessage("without carol", to: id, now: at(4))
        // Bob gets alice's rekey and message before carol's leave, which they follow.
        let held = try bob.clock(of: id)[Keys.alice.id]
        let early = try alice.entries(in: id, author: Keys.alice.id, after: held)
        for result in try bob.append(batch: early) {
            guard case .failure(let rejection) = result else {
                Issue.record("taken before what it depends on")
                continue
            }
            #expect(rejection.isRecoverable, "\(rejection)")
        }
        try sync(id, from: carol, to: bob)
        try sync(id, from: alice, to: bob)
        #expect(try texts(bob, id).last == "without carol")
    }

    /// A new member's first entry, and another member's entry that saw it, can reach a node
    /// before the add (a star's hub relays them in the order it took them). Refused then,
    /// they would not be sent again in the session; they wait for the add, as for any
    /// entry their clocks name.
    @Test func entriesOfANewMemberThatArriveBeforeItsAddWaitForIt() throws {
        let daveKeys = try SigningKeyPair(seed: [UInt8](repeating: 0xD5, count: 32))
        let (alice, bob, carol, dave) = (
            try makeStore(Keys.alice), try makeStore(Keys.bob), try makeStore(Keys.carol), try makeStore(daveKeys)
        )
        let (id, _) = try alice.createConversation(
            with: [Keys.bob.id, daveKeys.id], firstMessage: "before", now: at(1))
        for store in [bob, dave] { try sync(id, from: alice, to: store) }
        _ = try alice.changeMembers(of: id, add: [Keys.carol.id], now: at(2))
        try sync(id, from: alice, to: carol, invited: true)
        try sync(id, from: alice, to: dave)
        _ = try carol.sendMessage("carol here", to: id, now: at(3))
        try sync(id, from: carol, to: dave)
        _ = try dave.sendMessage("welcome carol", to: id, now: at(4))
        let early =
            try carol.entries(in: id, author: Keys.carol.id, after: 0)
            + dave.entries(in: id, author: daveKeys.id, after: 0)

        for result in try bob.append(batch: early) {
            guard case .failure(let rejection) = result else {
                Issue.record("taken before the add of its author")
                continue
            }
            #expect(rejection.isRecoverable, "\(rejection)")
        }
        try sync(id, from: alice, to: bob)
        for result in try bob.append(batch: early) {
            guard case .success(.appended) = result else {
                Issue.record("not taken once the add is held: \(result)")
                continue
            }
        }
        #expect(try texts(bob, id) == ["before", "carol here", "welcome carol"])
    }

    @Test func concurrentChangesConvergeToTheSameMembersAndKey() throws {
        let (alice, bob, id) = try pair()
        let carol = try makeStore(Keys.carol)
        let mallory = try makeStore(Keys.mallory)
        _ = try alice.changeMembers(of: id, add: [Keys.carol.id], now: at(2))
        try sync(id, from: alice, to: bob)
        try sync(id, from: alice, to: carol, invited: true)
        // A partition: alice removes bob on one side; carol adds mallory on the other.
        _ = try alice.changeMembers(of: id, remove: [Keys.bob.id], now: at(3))
        _ = try carol.changeMembers(of: id, add: [Keys.mallory.id], now: at(3))
        try sync(id, from: carol, to: bob)
        try sync(id, from: carol, to: mallory, invited: true)
        // The partition heals, in different orders on different nodes.
        try syncBoth(id, alice, carol)
        try syncBoth(id, bob, carol)
        try syncBoth(id, alice, mallory)
        try syncBoth(id, carol, mallory)
        let expected = [Keys.alice.id, Keys.carol.id, Keys.mallory.id]
        for store in [alice, carol, mallory, bob] {
            #expect(try members(store, id) == expected)
            #expect(try store.clock(of: id) == alice.clock(of: id))
        }
        // Neither change's key was sealed to exactly these members: the next writer rekeys,
        // and everyone still in reads it; bob does not.
        _ = try mallory.sendMessage("hello, both sides", to: id, now: at(6))
        for store in [alice, carol, bob] { try sync(id, from: mallory, to: store) }
        #expect(try texts(alice, id).last == "hello, both sides")
        #expect(try texts(carol, id).last == "hello, both sides")
        #expect(try !texts(bob, id).contains("hello, both sides"))
    }

    @Test func theHistoryShowsWhoAddedRemovedAndLeft() throws {
        let (alice, bob, id) = try pair()
        let carol = try makeStore(Keys.carol)
        try alice.notePeerSeen(Keys.carol.id, suggestedName: "Carol", address: nil)
        _ = try alice.changeMembers(of: id, add: [Keys.carol.id], now: at(2))
        try sync(id, from: alice, to: bob)
        try sync(id, from: alice, to: carol, invited: true)
        _ = try carol.leave(id, now: at(3))
        try sync(id, from: carol, to: alice)
        _ = try alice.changeMembers(of: id, remove: [Keys.bob.id], now: at(4))
        try sync(id, from: alice, to: bob)
        let lines = try bob.history(id).map { $0.membership?.sentence(by: $0.authorName) ?? $0.text ?? "?" }
        #expect(lines == ["before carol", "Alice added Carol", "Carol left", "Alice removed You"])
        // Paging by one still shows each line once, in place.
        var paged: [String] = []
        var before: DisplayOrderKey?
        while true {
            let page = try bob.history(id, limit: 1, before: before)
            guard let first = page.first else { break }
            paged = page.map { $0.membership?.sentence(by: $0.authorName) ?? $0.text ?? "?" } + paged
            before = first.orderKey
        }
        #expect(paged == lines)
    }

    @Test func aRemovedMembersMessagesWrittenConcurrentlyWithItsRemovalAreNotShown() throws {
        let (alice, bob, carol, id) = try trio()
        // Bob, who never sees his removal (or claims not to), goes on writing.
        _ = try alice.changeMembers(of: id, remove: [Keys.bob.id], now: at(3))
        _ = try bob.sendMessage("am I still here?", to: id, now: at(4))
        try sync(id, from: bob, to: carol)
        #expect(try texts(carol, id).contains("am I still here?"), "before carol holds the removal")
        try syncBoth(id, alice, carol)
        try syncBoth(id, alice, bob)
        for store in [alice, carol] {
            #expect(try !texts(store, id).contains("am I still here?"))
            #expect(try store.unreadCount(id) == store.history(id).filter { !$0.isMine && $0.membership == nil }.count)
        }
        #expect(try alice.clock(of: id) == carol.clock(of: id), "the entry is kept in every log")
    }

    @Test func namesInTheMembershipAreClaimsThatNeverRenameAKnownKey() throws {
        let (alice, bob, id) = try pair()
        let dave = try makeStore(SigningKeyPair(seed: [UInt8](repeating: 0xF6, count: 32)))
        try dave.savePeer(Keys.bob.id, name: "Bobby")
        // Alice adds dave and carol with names of her choosing: bob called "Alice", carol
        // called "Bobby" (a name dave gave someone else), and the add sealed as her node would.
        let change = try forgedChange(
            by: alice, in: id, add: [Keys.carol.id, dave.me],
            sealedTo: [Keys.alice.id, Keys.bob.id, Keys.carol.id, dave.me],
            names: [(Keys.alice.id, "Alice"), (Keys.bob.id, "Alice"), (Keys.carol.id, "Bobby\u{200B}")])
        #expect(try alice.append(change) != .duplicate)
        try sync(id, from: alice, to: dave, invited: true)
        #expect(try dave.members(of: id).includesMe)
        #expect(try dave.peer(Keys.alice.id)?.name == "Alice")
        #expect(try dave.peer(Keys.bob.id)?.name == "Bobby", "a key dave knows keeps its name")
        let carol = try #require(try dave.peer(Keys.carol.id))
        #expect(carol.name == "Bobby (\(Keys.carol.id.shortHex))", "a taken name is never merged")
        #expect(carol.claimedName != nil)
        _ = bob
    }

    @Test func aRemovedMemberCannotAddAnAccompliceByBackdating() throws {
        let (alice, bob, carol, id) = try trio()
        _ = try alice.changeMembers(of: id, remove: [Keys.bob.id], now: at(3))
        try sync(id, from: alice, to: carol)
        // Bob, removed, signs an add of mallory with a clock that never saw his removal, dated
        // early so that it sorts before it: valid in his view, so every node stores it.
        _ = try bob.changeMembers(of: id, add: [Keys.mallory.id], now: at(0))
        try sync(id, from: bob, to: alice)
        try sync(id, from: bob, to: carol)
        for store in [alice, carol] {
            #expect(try members(store, id) == [Keys.alice.id, Keys.carol.id], "the add came to nothing")
            #expect(try store.history(id).compactMap(\.membership).count == 2, "added carol, removed bob")
        }
        // The accomplice, who believes it was added, writes: stored everywhere (valid in its
        // view), shown nowhere.
        let mallory = try makeStore(Keys.mallory)
        try sync(id, from: bob, to: mallory, invited: true)
        _ = try mallory.sendMessage("I'm in", to: id, now: at(4))
        try sync(id, from: mallory, to: alice)
        #expect(try alice.clock(of: id)[Keys.mallory.id] == 1)
        #expect(try !texts(alice, id).contains("I'm in"))
        #expect(try alice.unreadCount(id) == 0, "not counted as unread either")
        // The next message is sealed to alice and carol only.
        _ = try alice.sendMessage("no accomplice", to: id, now: at(5))
        try sync(id, from: alice, to: mallory)
        #expect(try !texts(mallory, id).contains("no accomplice"))
        #expect(try alice.sharing(id, with: Keys.mallory.id) == .none)
    }

    @Test func theFoldAppliesConcurrentChangesInDisplayOrder() {
        let keys = (1...4).map { NodeID(validatedBytes: [UInt8](repeating: UInt8($0), count: 32)) }
        let (a, b, c, d) = (keys[0], keys[1], keys[2], keys[3])
        func event(
            _ author: NodeID, _ seq: UInt64, sum: UInt64, add: [NodeID] = [], remove: [NodeID] = []
        )
            -> MembershipEvent
        {
            MembershipEvent(
                author: author, seq: seq, order: DisplayOrderKey(clockSum: sum, timestamp: 0, author: author, seq: seq),
                add: add, remove: remove, recipients: [a], frontier: VectorClock())
        }
        let create = MembershipEvent(
            author: a, seq: 1, order: DisplayOrderKey(clockSum: 0, timestamp: 0, author: a, seq: 1), add: [a, b, c],
            remove: [], recipients: [a, b, c], frontier: VectorClock([a: 1]))
        // The admin removes b; concurrently b (not the admin) would remove c: void either way.
        let log = MembershipLog(
            create: create, changes: [event(b, 1, sum: 1, remove: [c]), event(a, 2, sum: 1, remove: [b])])
        #expect(log.current.members == [a, c])
        // The admin leaves: the first member to have joined after it becomes the admin.
        let leave = MembershipEvent(
            author: a, seq: 2, order: DisplayOrderKey(clockSum: 1, timestamp: 0, author: a, seq: 2), add: [],
            remove: [a], recipients: nil, frontier: VectorClock())
        let after = MembershipLog(create: create, changes: [leave, event(c, 1, sum: 2, add: [d])]).current
        #expect(after.members == [b, c, d])
        #expect(after.admin == b)
        #expect(after.epochInForce == nil, "no key was sealed to b, c and d")
    }
}

/// The membership log is cached as committed (`MembershipLogCache`), and checked against the
/// number of events held each time it is asked for.
@Suite("Membership log cache")
struct MembershipLogCacheTests {
    @Test func theCachedLogFollowsEveryChangeAndNeverOneUndone() throws {
        let alice = try makeStore(Keys.alice)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "hi")
        let log = { try alice.read { db in try alice.membershipLog(id, db: db) } }
        let fresh = { try alice.read { db in try ConfabStore.fetchMembershipLog(id, db: db) } }
        #expect(try log()?.current.members.sorted() == [Keys.alice.id, Keys.bob.id].sorted())

        // A write reads the log with an event of its own (made up: carol added), then fails:
        // nothing of it may stay cached, since the next real event brings the same count back.
        #expect(throws: StoreError.self) {
            try alice.write { db in
                try ConfabStore.insertMembershipEvent(
                    MembershipEvent(
                        author: Keys.alice.id, seq: 99,
                        order: DisplayOrderKey(clockSum: 99, timestamp: 99, author: Keys.alice.id, seq: 99),
                        add: [Keys.carol.id], remove: [], recipients: nil, frontier: VectorClock([Keys.alice.id: 99])),
                    conversation: id, db: db)
                #expect(try alice.membershipLog(id, db: db)?.current.contains(Keys.carol.id) == true)
                throw StoreError.invalidInput("undone")
            }
        }
        #expect(try log() == fresh())

        _ = try alice.changeMembers(of: id, add: [Keys.mallory.id])
        #expect(try log() == fresh())
        #expect(try log()?.current.contains(Keys.mallory.id) == true)
        #expect(try log()?.current.contains(Keys.carol.id) == false)
        _ = try alice.changeMembers(of: id, remove: [Keys.bob.id])
        #expect(try log() == fresh())
        #expect(try log()?.current.contains(Keys.bob.id) == false)
    }
}
