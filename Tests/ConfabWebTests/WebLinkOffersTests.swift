import ConfabClient
import ConfabModel
import ConfabNode
import ConfabTestSupport
import Foundation
import Testing

@testable import ConfabWeb

/// A tab that crashed says nothing: once no tab of the app is connected, the link offers the
/// app opened end on the node, and only those (Protocol.md §13, `link_cancel`).
@Suite struct WebLinkOffersTests {
    /// The first `link` event of `id`, or nil after 20 s (a ceiling, not a wait).
    static func ended(_ id: String, in events: AsyncStream<NodeEvent>) async -> LinkProgress? {
        await withTaskGroup(of: LinkProgress?.self) { group in
            group.addTask {
                for await case .link(let progress) in events where progress.id == id { return progress }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
    }

    @Test func theLastTabLeavingCancelsTheOffersTheAppOpenedAndNoOther() async throws {
        let directory = DataDirectory(url: try ConfabBinary.temporaryDirectory("web-link-offers"))
        defer { try? FileManager.default.removeItem(at: directory.url) }
        var options = NodeOptions(directory: directory)
        options.listenHost = "127.0.0.1"
        options.discovery = false
        options.logger = WebRoutesTests.Fixture.quiet
        let local = try Profile.initialize(directory, name: "Alice")
        let node = try Node(options: options, local: local)
        let offers = WebLinkOffers()
        let fanOut = EventFanOut(messenger: node.messenger, linkOffers: offers)
        let events = node.events()

        let first = try await fanOut.subscribe(conversation: nil, limit: 100)
        let second = try await fanOut.subscribe(conversation: nil, limit: 100)
        let offer = try await node.messenger.perform(Operations.OfferLink())
        offers.opened(offer.id)
        await fanOut.unsubscribe(first)
        // A tab is left: its offer runs on, so another is refused.
        await #expect {
            _ = try await node.messenger.perform(Operations.OfferLink())
        } throws: { error in
            "\(error)".contains("a link offer is already open here")
        }
        await fanOut.unsubscribe(second)
        let ended = await Self.ended(offer.id, in: events)
        #expect(ended?.state == .failed && ended?.message == "the offer was cancelled")

        // An offer the app did not open (the control socket's) outlives the app's tabs.
        let later = node.events()
        let other = try await node.messenger.perform(Operations.OfferLink())
        let third = try await fanOut.subscribe(conversation: nil, limit: 100)
        await fanOut.unsubscribe(third)
        await #expect {
            _ = try await node.messenger.perform(Operations.OfferLink())
        } throws: { error in
            "\(error)".contains("a link offer is already open here")
        }
        _ = try await node.messenger.perform(Operations.CancelLink(id: other.id))
        #expect(await Self.ended(other.id, in: later)?.message == "the offer was cancelled")
    }
}
