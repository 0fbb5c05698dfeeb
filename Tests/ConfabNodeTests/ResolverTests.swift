import ConfabClient
import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabNode
@testable import ConfabStore

/// What a person types names a key before it names a name: a peer's display name can
/// be anything its Hello said, so it must never shadow a key, a fingerprint or a prefix.
@Suite struct ResolverTests {
    let store: ConfabStore
    let identity = SigningKeyPair.generate()
    let bob = NodeID(SigningKeyPair.generate().publicKey)
    let mallory = NodeID(SigningKeyPair.generate().publicKey)
    var resolver: Resolver { Resolver(store: store) }

    init() throws {
        store = try ConfabStore.inMemory(identity: identity)
    }

    /// Stores a name as it is, the way a Hello could set it before names were checked.
    private func name(_ id: NodeID, _ name: String) throws {
        try store.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO peer(id, name, addedAt) VALUES (?, ?, 0)
                    ON CONFLICT(id) DO UPDATE SET name = excluded.name
                    """,
                arguments: [id.bytes, name])
        }
    }

    /// A group is found by its title, as the list shows it, once no peer has that name: the
    /// error that listed "Team" among the conversations no longer refuses "Team".
    @Test func aGroupIsFoundByItsTitleAfterEveryPeer() throws {
        try name(bob, "bob")
        try name(mallory, "mallory")
        let team = try store.createConversation(with: [bob, mallory], title: "Team").id
        #expect(try resolver.conversation("Team") == team)
        #expect(try resolver.conversation("team") == team)
        // `confab send Team` writes there too.
        #expect(try resolver.messageTarget("Team") == .conversation(team))
        let other = try store.createConversation(with: [bob], title: "bob").id
        // A peer's name wins over a title: "bob" is bob's latest thread, whatever its title.
        #expect(try resolver.conversation("bob") == other)
        _ = try store.createConversation(with: [mallory], title: "Team")
        #expect(throws: ResolveError.self) { try resolver.conversation("Team") }
        #expect(throws: ResolveError.self) { try resolver.messageTarget("Team") }
    }

    @Test func aFullKeyIsThatKeyWhateverANameSays() throws {
        try name(bob, "bob")
        try name(mallory, bob.hex)
        #expect(try resolver.peer(bob.hex) == bob)
        #expect(try resolver.peer(bob.hex.uppercased()) == bob)
        #expect(try resolver.peer(" \(bob.hex) ") == bob)
    }

    @Test func aFingerprintIsThatKey() throws {
        try name(bob, "bob")
        try name(mallory, bob.fingerprint)
        #expect(try resolver.peer(bob.fingerprint) == bob)
    }

    @Test func aUniqueKeyPrefixWinsOverAName() throws {
        try name(bob, "bob")
        for length in [4, 8, 16] {
            try name(mallory, String(bob.hex.prefix(length)))
            #expect(try resolver.peer(String(bob.hex.prefix(length))) == bob)
        }
    }

    @Test func hexThatPrefixesNoKeyStillFindsAName() throws {
        let short = bob.hex.hasPrefix("cafe") ? "beef" : "cafe"
        try name(bob, short)
        #expect(try resolver.peer(short) == bob)
    }

    @Test func namesMatchWhateverTheirCase() throws {
        try name(bob, "Bob")
        #expect(try resolver.peer("BOB") == bob)
        #expect(throws: ResolveError.self) { try resolver.peer("bobby") }
    }

    /// The review's repro: a message "to Bob's key" must reach Bob, not whoever took the
    /// key as a name.
    @Test func sendingToAKeyReachesThatKey() async throws {
        try name(bob, "bob")
        try name(mallory, bob.hex)
        let target = try resolver.messageTarget(bob.hex)
        #expect(target == .newConversation(with: bob))
        let local = Profile(
            directory: DataDirectory(url: URL(fileURLWithPath: "/nonexistent")), identity: identity, store: store)
        let sent = try await LocalMessenger(local: local).send("for bob only", to: target)
        #expect(sent.created)
        #expect(try store.conversation(sent.conversation)?.participants.map(\.id) == [bob])
        #expect(try resolver.conversation(bob.hex) == sent.conversation)
        #expect(try resolver.conversation(String(bob.hex.prefix(16))) == sent.conversation)
        #expect(try resolver.messageTarget(bob.hex) == .conversation(sent.conversation))
    }

    /// A send's target and the name the CLI prints come from one lookup, and say what the
    /// old two did: the peer's name before its first thread, then the thread's.
    @Test func aTargetComesWithTheNameItReaches() async throws {
        try name(bob, "Bob")
        #expect(try resolver.namedMessageTarget("bob") == (.newConversation(with: bob), "Bob"))
        #expect(throws: ResolveError.self) { try resolver.namedMessageTarget("carol") }
        let thread = try store.createConversation(with: [bob], firstMessage: "hi").id
        let group = try store.createConversation(with: [bob, mallory], title: "Hike", firstMessage: "who?").id
        #expect(try resolver.namedMessageTarget("bob") == (.conversation(thread), "Bob"))
        #expect(try resolver.namedMessageTarget(String(group.hex.prefix(8))) == (.conversation(group), "Hike"))
        for id in [thread, group] {
            #expect(try store.conversationName(id) == store.conversation(id)?.displayName)
            #expect(try resolver.displayName(of: .conversation(id)) == resolver.namedMessageTarget(id.hex).name)
        }
        try store.deleteConversation(group)
        #expect(try store.conversationName(group) == nil && store.conversation(group) == nil)
        // A thread deleted here is written in again when the person writes to the peer, and
        // the send names the peer, not the thread's id.
        try store.deleteConversation(thread)
        #expect(try resolver.namedMessageTarget("bob") == (.conversation(thread), "Bob"))
    }
}
