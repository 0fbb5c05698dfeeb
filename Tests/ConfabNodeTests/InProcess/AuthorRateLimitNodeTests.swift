import ConfabClient
import ConfabModel
import ConfabStore
import ConfabSync
import Foundation
import Testing

@testable import ConfabNode

/// The per-author rate on real nodes: a member's flood reaches a person's node at that
/// rate, whole and in order, and the session goes on.
@Suite(.serialized) struct AuthorRateLimitNodeTests {
    @Test func aFloodArrivesWholeAtTheAuthorsRateOverOneSession() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        let address = try await alice.start()
        var options = nodes.options("bob", peers: ["\(alice.me.hex)@127.0.0.1:\(address.port!)"])
        // 200 entries a second, bursts of 100.
        options.authorRateLimit = AuthorRateLimit(
            entriesPerSecond: 200, bytesPerSecond: 1e9, burstEntries: 100, burstBytes: 1e9)
        let bob = try Node(options: options, local: Profile.initialize(options.directory, name: "bob"))
        try await bob.start()
        let bobEvents = bob.events()

        let first = try await alice.messenger.send("line 0", to: .newConversation(with: bob.me))
        _ = try await firstEvent(in: bobEvents, "bob stores the first line") {
            if case .message(let message) = $0 { return message.text == "line 0" }
            return false
        }
        let texts = (1...800).map { "line \($0)" }
        let start = ContinuousClock.now
        _ = try await alice.messenger.send(texts, to: first.conversation)
        _ = try await firstEvent(in: bobEvents, within: 60, "bob stores the last line") {
            if case .message(let message) = $0 { return message.text == "line 800" }
            return false
        }
        let elapsed = ContinuousClock.now - start
        // Beyond the burst and the first Entries message (up to 256, taken whole), at most
        // 200 a second: 444 entries take at least 2 s.
        #expect(elapsed >= .seconds(2), "800 lines in \(elapsed)")
        #expect(
            try bob.local.store.history(first.conversation, limit: 5000).compactMap(\.text) == ["line 0"] + texts)
        let status = try await bob.status()
        // What waited counts as stored from a peer once taken, and nothing came twice.
        #expect(status.traffic.entriesStored == 802)
        #expect(status.traffic.duplicatesReceived == 0)
        #expect(status.sessions.map(\.peer) == [alice.me])
        await bob.stop()
        await alice.stop()
    }
}
