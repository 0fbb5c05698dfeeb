import ConfabClient
import NIOConcurrencyHelpers

/// The link offers the web app opened (`link_offer`): a page closes its offer itself when its
/// dialog or tab closes, but a tab that crashed or lost the network says nothing. Once no
/// tab of the app is left, nobody can see the code or answer the words, so they end here.
final class WebLinkOffers: Sendable {
    private let ids = NIOLockedValueBox<Set<String>>([])

    func opened(_ id: String) {
        ids.withLockedValue { _ = $0.insert(id) }
    }

    /// Cancels every offer the app opened (one that ended meanwhile is not running: a no-op).
    func cancelAll(with messenger: LocalMessenger) async {
        let open = ids.withLockedValue { ids in
            defer { ids = [] }
            return ids
        }
        for id in open { _ = try? await messenger.perform(Operations.CancelLink(id: id)) }
    }
}
