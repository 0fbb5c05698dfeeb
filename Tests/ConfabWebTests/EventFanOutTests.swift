import ConfabClient
import ConfabModel
import ConfabNode
import ConfabTestSupport
import Foundation
import Testing

@testable import ConfabWeb

/// One subscription to the node for every tab: each tab gets what it asked for, a tab that
/// leaves takes nothing from the others, and the first tab after all left is subscribed anew.
/// A node not started (no network): its events are emitted by the test.
@Suite struct EventFanOutTests {
    /// A node not started, and the fan-out of its events.
    static func fanOut() throws -> (Node, EventFanOut) {
        let directory = DataDirectory(url: try ConfabBinary.temporaryDirectory("web-fan-out"))
        var options = NodeOptions(directory: directory)
        options.discovery = false
        options.logger = WebRoutesTests.Fixture.quiet
        let local = try Profile.initialize(directory, name: "Alice")
        let node = try Node(options: options, local: local)
        return (node, EventFanOut(messenger: LocalMessenger(local: local, node: node), linkOffers: WebLinkOffers()))
    }

    @Test func eachTabGetsItsOwnEventsInOrderAndTabsComeAndGo() async throws {
        let (node, fanOut) = try Self.fanOut()
        let one = ConversationID(bytes: [UInt8](repeating: 1, count: 16))!
        let two = ConversationID(bytes: [UInt8](repeating: 2, count: 16))!

        let all = try await fanOut.subscribe(conversation: nil, limit: 100)
        let onlyOne = try await fanOut.subscribe(conversation: one, limit: 100)
        for conversation in [one, two, one] { node.emit(.changed(conversation)) }
        node.emit(.changed(nil))
        func next(_ tab: EventFanOut.Tab, _ count: Int) async -> [String] {
            var lines: [String] = []
            var iterator = tab.lines.makeAsyncIterator()
            while lines.count < count, let line = await iterator.next() { lines.append(line) }
            return lines
        }
        let seen = await next(all, 4)
        #expect(seen.map { $0.contains(one.hex) } == [true, false, true, false])
        #expect(seen[1].contains(two.hex))
        // The filtered tab: its conversation's, and what concerns every conversation.
        let filtered = await next(onlyOne, 3)
        #expect(filtered.map { $0.contains(one.hex) } == [true, true, false])
        #expect(filtered.allSatisfy { !$0.contains(two.hex) })

        await fanOut.unsubscribe(onlyOne)
        node.emit(.changed(two))
        #expect(await next(all, 1).first?.contains(two.hex) == true)
        await fanOut.unsubscribe(all)

        let again = try await fanOut.subscribe(conversation: nil, limit: 100)
        node.emit(.changed(one))
        #expect(await next(again, 1).first?.contains(one.hex) == true)
        #expect(!again.fellBehind)
        await fanOut.unsubscribe(again)
    }

    @Test func aFullQueueDropsThatTabAloneAndSaysItFellBehind() async throws {
        let (node, fanOut) = try Self.fanOut()
        let small = try await fanOut.subscribe(conversation: nil, limit: 3)
        let large = try await fanOut.subscribe(conversation: nil, limit: 100)
        let conversation = ConversationID(bytes: [UInt8](repeating: 1, count: 16))!
        for _ in 0..<10 { node.emit(.changed(conversation)) }
        var received = 0
        for await _ in large.lines {
            received += 1
            if received == 10 { break }
        }
        #expect(received == 10)
        var held = 0
        for await _ in small.lines { held += 1 }
        #expect(held == 3)
        #expect(small.fellBehind)
        #expect(!large.fellBehind)
    }
}
