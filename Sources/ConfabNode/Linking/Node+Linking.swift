import ConfabClient
import ConfabModel
import ConfabNet

/// Linking a new machine from a front end (`link_offer`, Protocol.md §13 and §20.10): the
/// node listens for it where it listens for peers, and tells peers of the new device at once.
extension Node {
    public func offerLink() async throws -> LinkOfferStarted {
        try await offerLink(timeout: LinkOffer.defaultTimeout)
    }

    func offerLink(timeout: Duration) async throws -> LinkOfferStarted {
        let offer = try LinkOffer(profile: local, networkKey: options.networkKey)
        let wildcard = ["", "::", "0.0.0.0"].contains(options.listenHost)
        // A node held to one address (loopback in tests) offers there only; one listening on
        // all of them offers on all, and names the first address a new machine can reach.
        let setup = FrontEndLinkOffer.Setup(
            host: wildcard ? "0.0.0.0" : options.listenHost,
            advertisedHost: wildcard ? (LinkOffer.localAddresses.first ?? "127.0.0.1") : options.listenHost,
            discovery: options.discovery ? LinkDiscovery(port: options.discoveryPort) : nil,
            timeout: timeout, group: group)
        return try await frontEndLinkOffer.start(
            offer, setup: setup, emit: { [weak self] in self?.emit(.link($0)) },
            linked: { [weak self] _ in await self?.ownDeviceLinked() })
    }

    public nonisolated func confirmLink(_ id: String?, yes: Bool) async throws {
        try await frontEndLinkOffer.confirm(id, yes: yes)
    }

    public nonisolated func cancelLink(_ id: String?) async throws {
        await frontEndLinkOffer.cancel(id)
    }

    /// The offer added a device through this process's store: peers get the list now, and
    /// the personal conversation the link may have started; front ends read the list again.
    private func ownDeviceLinked() {
        do {
            let personal = try local.store.personalConversation()
            try ownDeviceListChanged(wrote: personal.map { [$0] } ?? [])
        } catch {
            logger.warning("could not offer the new device list to peers: \(error)")
        }
        emit(.changed(nil))
    }
}
