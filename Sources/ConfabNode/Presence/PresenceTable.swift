import ConfabClient
import ConfabModel
import ConfabWire
import Foundation

/// Who is online now: a peer with a session, or one whose beacon came recently enough for
/// its pace. A pure value: every change takes the time as a parameter and returns the
/// events it causes, so timeouts are tested without waiting.
///
/// Beacons slow down on an idle LAN (every 1.5 s at first, up to every 30 s, and up to
/// every 75 s on a LAN of hundreds), so "recently enough" follows each peer's own pace:
/// three times the gap between its last two beacons, at least `offlineAfter`, at most
/// `maxOfflineAfter` (Protocol.md §11.5).
struct PresenceTable {
    /// A peer is offline after this long without a beacon or a session, at the least.
    static let offlineAfter: TimeInterval = 4.5
    /// … and at the most, however slowly it beacons: three of the longest gaps a crowded
    /// LAN's pace allows (75 s, drawn up to ×1.25).
    static let maxOfflineAfter: TimeInterval = 300
    /// Keys held at most; the least recently seen without a session give way.
    static let capacity = 1024

    private(set) var entries: [NodeID: PeerPresence] = [:]
    /// When each peer's last beacon came, and the gap before it.
    private var beacons: [NodeID: (last: Date, gap: TimeInterval)] = [:]

    func contains(_ id: NodeID) -> Bool { entries[id] != nil }

    var onlineCount: Int { entries.values.filter(\.online).count }

    /// Records a session opening or closing (`connected`), an address, or a beacon (`seen`);
    /// returns `peerOnline`/`peerOffline` when that changed whether the peer is online.
    mutating func update(
        _ id: NodeID, known: Peer?, connected: Bool? = nil, address: String? = nil, seen: Bool = false, now: Date
    ) -> NodeEvent? {
        if entries[id] == nil { makeRoom() }
        var entry =
            entries[id]
            ?? PeerPresence(
                id: id, name: known?.name ?? id.shortHex, online: false, connected: false, address: nil,
                lastSeen: nil, role: .person)
        let wasOnline = entry.online
        if let connected { entry.connected = connected }
        if let address { entry.address = address }
        if seen || connected == true { entry.lastSeen = now }
        if seen {
            let gap = beacons[id].map { now.timeIntervalSince($0.last) } ?? 0
            beacons[id] = (now, gap)
        }
        if let name = known?.name { entry.name = name }
        entry = Self.withTrust(entry, known: known)
        entry.online = entry.connected || beaconIsRecent(id, now: now)
        entries[id] = entry
        guard entry.online != wasOnline else { return nil }
        return entry.online ? .peerOnline(entry) : .peerOffline(entry)
    }

    /// The peer said it is shutting down: its last beacon no longer makes it online.
    mutating func leaving(_ id: NodeID, known: Peer?, now: Date) -> NodeEvent? {
        guard entries[id] != nil else { return nil }
        beacons[id] = nil
        return update(id, known: known, now: now)
    }

    /// How long a peer stays online after its last beacon, at its pace.
    func offlineAfter(_ id: NodeID) -> TimeInterval {
        min(Self.maxOfflineAfter, max(Self.offlineAfter, 3 * (beacons[id]?.gap ?? 0)))
    }

    private func beaconIsRecent(_ id: NodeID, now: Date) -> Bool {
        guard let last = beacons[id]?.last else { return false }
        return now.timeIntervalSince(last) < offlineAfter(id)
    }

    /// What a peer's Hello said about it: its role, its protocol versions, where it accepts
    /// sessions, its name here.
    mutating func helloReceived(_ id: NodeID, hello: SessionMessage.Hello, address: String?, name: String?) {
        guard var entry = entries[id] else { return }
        entry.role = hello.role
        entry.protocolVersion = hello.version
        entry.oldestProtocolVersion = hello.oldestVersion
        if let address { entry.address = address }
        if let name { entry.name = name }
        entries[id] = entry
    }

    /// Whether re-evaluating at `now` would take anyone online or offline: asked every tick,
    /// so that the store is read for names only when an event is due.
    func changes(at now: Date) -> Bool {
        entries.contains { id, entry in entry.online != (entry.connected || beaconIsRecent(id, now: now)) }
    }

    /// Every entry re-evaluated at `now` (who went offline), with names and trust as the
    /// store knows them.
    mutating func expire(known: [NodeID: Peer], now: Date) -> [NodeEvent] {
        entries.keys.sorted().compactMap { update($0, known: known[$0], now: now) }
    }

    /// Every known peer (offline ones too) and every present stranger, by name.
    func snapshot(known: [Peer]) -> [PeerPresence] {
        let byID = Dictionary(known.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var result = known.map { peer in
            guard var entry = entries[peer.id] else {
                return PeerPresence(
                    id: peer.id, name: peer.name, online: false, connected: false, address: peer.address,
                    lastSeen: peer.lastSeenAt, role: .person)
            }
            entry.name = peer.name
            return entry
        }
        result += entries.values.filter { byID[$0.id] == nil }
        return result.map { Self.withTrust($0, known: byID[$0.id]) }.sorted {
            $0.name.localizedCaseInsensitiveCompare($1.name) == .orderedAscending
        }
    }

    private mutating func makeRoom() {
        guard entries.count >= Self.capacity else { return }
        let oldest = entries.values.filter { !$0.connected }.min {
            ($0.lastSeen ?? .distantPast) < ($1.lastSeen ?? .distantPast)
        }
        if let oldest {
            entries[oldest.id] = nil
            beacons[oldest.id] = nil
        }
    }

    /// What the store knows about trust, on a presence entry.
    private static func withTrust(_ entry: PeerPresence, known: Peer?) -> PeerPresence {
        var entry = entry
        entry.trust = known?.trust ?? .unverified
        entry.warning = known?.warning
        return entry
    }
}
