import ConfabNet

extension Node {
    /// Tells discovery whose repeated beacons this node still acts on (Protocol.md §11.4):
    /// those it shows present (a beacon keeps them so) or wants a session with, any key's
    /// while it still dials strangers or is a relay, and those naming a room that seeks
    /// members here. Called whenever that may change: a session opened or closed, the
    /// people it wants re-read, the rooms joined or a peer's rooms heard.
    func attendBeacons() {
        guard let discovery else { return }
        let strangers = needs.strangers(among: sessions.sessions.map(\.remote))
        discovery.attend(
            BeaconAttention(
                everyKey: options.role == .relay || strangers < SessionNeeds.strangerSessions,
                keys: chosenPeers.union(needs.wanted).union(presence.entries.keys),
                roomTags: roomDirectory.tagsSeekingSessions,
                relays: SessionNeeds.countsAsRelay(role: .relay, privateNetwork: options.networkKey != .default)))
    }
}
