import ConfabClient
import ConfabModel
import NIOConcurrencyHelpers

/// The node's events for every tab at once: one subscription to the node, each event encoded
/// as JSON once and handed to each tab's own bounded queue (its conversation's events only,
/// when it asked for one). With a subscription and an encoding per tab, 100 tabs cost the
/// node 100 encodings of every event, and its own chat waited behind them (Bench/web.sh).
actor EventFanOut {
    /// One tab's queue; `fellBehind` once its queue was full and it was dropped.
    final class Tab: Sendable {
        let conversation: ConversationID?
        let lines: AsyncStream<String>
        fileprivate let continuation: AsyncStream<String>.Continuation
        private let dropped = NIOLockedValueBox(false)

        var fellBehind: Bool { dropped.withLockedValue { $0 } }

        init(conversation: ConversationID?, limit: Int) {
            self.conversation = conversation
            (lines, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(limit))
        }

        /// False when the queue was full: the tab is dropped.
        fileprivate func offer(_ line: String) -> Bool {
            if case .dropped = continuation.yield(line) {
                dropped.withLockedValue { $0 = true }
                continuation.finish()
                return false
            }
            return true
        }
    }

    private let messenger: LocalMessenger
    private let linkOffers: WebLinkOffers
    private var tabs: [ObjectIdentifier: Tab] = [:]
    private var upstream: Task<Void, Never>?
    /// Which subscription to the node is the current one: a cancelled one that ends late
    /// must not end the tabs of the next.
    private var generation = 0

    init(messenger: LocalMessenger, linkOffers: WebLinkOffers) {
        self.messenger = messenger
        self.linkOffers = linkOffers
    }

    /// A tab's queue, subscribed before this returns: what the node emits from now on is in it.
    func subscribe(conversation: ConversationID?, limit: Int) async throws -> Tab {
        if upstream == nil {
            let events = try await messenger.events(for: nil)
            generation += 1
            let current = generation
            upstream = Task { [weak self] in
                for await event in events {
                    guard let self else { return }
                    // Encoded here, once, off the actor; handed out on it.
                    guard let line = try? JSONOutput.line(ControlEvent(event)) else { continue }
                    await self.deliver(line, of: event)
                }
                await self?.ended(current)
            }
        }
        let tab = Tab(conversation: conversation, limit: limit)
        tabs[ObjectIdentifier(tab)] = tab
        return tab
    }

    func unsubscribe(_ tab: Tab) async {
        tabs[ObjectIdentifier(tab)] = nil
        tab.continuation.finish()
        // No tab left: the node keeps no watcher for the web app, nor an offer nobody sees.
        if tabs.isEmpty {
            upstream?.cancel()
            upstream = nil
            await linkOffers.cancelAll(with: messenger)
        }
    }

    private func deliver(_ line: String, of event: NodeEvent) {
        for (key, tab) in tabs where tab.conversation.map(event.concerns) ?? true {
            if !tab.offer(line) { tabs[key] = nil }
        }
    }

    /// The node stopped: every tab's events end.
    private func ended(_ subscription: Int) {
        guard subscription == generation, upstream != nil else { return }
        for tab in tabs.values { tab.continuation.finish() }
        tabs = [:]
        upstream = nil
    }
}
