import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNet
import ConfabStore
import ConfabWire
import Foundation
import NIOCore
import NIOPosix

/// What `confab doctor` checks with: the options `confab up` would run with.
public struct DoctorOptions: Sendable {
    public var listenHost = "::"
    public var listenPort = HostPort.defaultSessionPort
    public var discoveryPort = HostPort.defaultDiscoveryPort
    /// `--beacon`: empty means every up interface (`BeaconPlan`).
    public var beaconTargets: [String] = []
    /// `--peer`: those with a key (`KEY@HOST:PORT`) are probed too.
    public var staticPeers: [String] = []
    public var network: NetworkKeySetting
    /// How long to listen for beacons.
    public var seconds = 3.0
    /// For each peer's TCP connect, and again for its handshake.
    public var probeTimeout: TimeAmount = .seconds(2)
    /// Known peers probed, most recently seen first.
    public var maxPeers = 16

    public init(network: NetworkKeySetting) {
        self.network = network
    }
}

/// Checks, in a few seconds, what stands between this node and its peers (`confab doctor`):
/// gathers the facts — from the running node when one answers on the control socket,
/// otherwise as `confab up` would run — and hands them to `Diagnosis`.
///
/// Everything that takes time happens at once: the listening window (the doctor's beacons
/// sent at its start, so that peers answer), the probes of known peers, and reading the
/// firewall rules.
public enum Doctor {
    public static func run(profile: Profile, options: DoctorOptions) async throws -> DoctorReport {
        let started = ContinuousClock.now
        let group = MultiThreadedEventLoopGroup.singleton
        let (status, presence) = await askRunningNode(profile)
        let interfaces = NetworkInterface.current()
        let nodeDiscovers = status.map { $0.discovery && $0.beacons.port > 0 } ?? false
        let port = nodeDiscovers ? status!.beacons.port : options.discoveryPort
        let (beacons, targets) = try plan(
            status: nodeDiscovers ? status : nil, options: options, interfaces: interfaces, port: port)
        let listen =
            status.map { [$0.listen] } ?? [HostPort(host: options.listenHost, port: options.listenPort).description]
        let tcpPort =
            status.flatMap { try? HostPort($0.listen, defaultPort: options.listenPort).port } ?? options.listenPort

        // The doctor's own beacons: one per target, each with its own timestamp, so each
        // one that comes back names its target.
        let first = Int64(Date().timeIntervalSince1970 * 1000)
        let timestamps = targets.indices.map { first + Int64($0) }
        let role = status?.role ?? .person
        let datagrams = timestamps.map { timestamp in
            BeaconCodec.encode(
                Beacon(node: profile.me, tcpPort: UInt16(clamping: max(1, tcpPort)), role: role, timestamp: timestamp),
                signedBy: profile.identity, networkKey: options.network.key)
        }

        let tcp: DoctorFacts.Port
        if let status {
            tcp = DoctorFacts.Port(
                proto: "tcp", address: status.listen, port: tcpPort, state: .node)
        } else {
            tcp = await PortProbe.tcp(host: options.listenHost, port: options.listenPort, group: group)
        }
        async let listened = BeaconListener(port: port, group: group).run(
            targets: targets, beacons: datagrams, seconds: options.seconds)
        async let probed = probePeers(profile: profile, options: options, presence: presence, group: group)
        async let firewall = FirewallRules.read(port: port)

        let outcome = await listened
        let store = profile.store
        let tally = BeaconTally(
            outcome.datagrams.map { (bytes: $0.bytes, host: $0.from.hostForDialing ?? "?") },
            networkKey: options.network.key, me: profile.me, sent: Set(timestamps),
            name: { id in (try? store.peer(id))??.name })
        var udp = outcome.ports
        if nodeDiscovers {
            for index in udp.indices where udp[index].state == .free || udp[index].state == .inUse {
                udp[index].state = .node
                udp[index].error = nil
            }
        }
        let echoes = zip(targets, zip(timestamps, outcome.sendErrors)).map { target, sent in
            DoctorFacts.Echo(
                target: target.display, interface: target.interface, sent: sent.1 == nil,
                received: tally.echoed.contains(sent.0), error: sent.1)
        }
        let facts = DoctorFacts(
            node: nodeFacts(profile: profile, status: status),
            network: .init(
                tag: options.network.tag, source: options.network.source.rawValue,
                isDefault: options.network.key == .default),
            seconds: options.seconds,
            interfaces: interfaces.map {
                DoctorFacts.Interface(
                    name: $0.name, up: $0.isUp, loopback: $0.isLoopback,
                    addresses: $0.ipv4.map(\.description) + $0.ipv6.map(\.description))
            },
            beacons: beacons, listen: listen, ports: udp + [tcp], heard: tally.heard, echoes: echoes,
            peers: await probed, firewall: await firewall,
            protocolNotices: protocolNotices(presence: presence, heard: tally.heard.nodes))
        let elapsed = ContinuousClock.now - started
        return DoctorReport(
            facts: facts, diagnosis: Diagnosis(facts),
            elapsed: elapsed / .seconds(1))
    }

    // MARK: Steps

    /// The running node's word for peers it had sessions with; for the others heard, what
    /// their beacons' versions say (a beacon does not say the oldest version its sender
    /// syncs with, so a newer one is taken to sync with this one until a Hello says not).
    static func protocolNotices(presence: [PeerPresence], heard: [DoctorFacts.HeardNode]) -> [String] {
        let told = Set(presence.filter { $0.protocolVersion != nil }.map(\.id.hex))
        let fromBeacons = heard.filter { !told.contains($0.id) }.compactMap { node -> String? in
            guard let version = node.version else { return nil }
            return ProtocolNotice.text(
                name: node.name ?? String(node.id.prefix(8)), ProtocolCompatibility(peerVersion: version, peerOldest: 1)
            )
        }
        return presence.compactMap(\.protocolNotice) + fromBeacons
    }

    private static func askRunningNode(_ profile: Profile) async -> (NodeStatus?, [PeerPresence]) {
        guard ControlServer.mightBeRunning(profile.directory),
            let attached = try? await AttachedMessenger(local: profile)
        else { return (nil, []) }
        let status = try? await attached.status()
        let presence = (try? await attached.peers()) ?? []
        await attached.close()
        return (status, presence)
    }

    private static func nodeFacts(profile: Profile, status: NodeStatus?) -> DoctorFacts.Node {
        guard let status else {
            return DoctorFacts.Node(running: false, id: profile.me.hex, name: try? profile.displayName())
        }
        return DoctorFacts.Node(
            running: true, id: status.id.hex, name: status.name, discovery: status.discovery,
            sessions: status.sessions.count)
    }

    /// The beacon targets in use: the running node's (as its status shows them), else those
    /// `confab up` would use with these options.
    static func plan(
        status: NodeStatus?, options: DoctorOptions, interfaces: [NetworkInterface], port: Int
    ) throws -> (DoctorFacts.Beacons, [BeaconListener.Target]) {
        let plan = BeaconPlan.make(interfaces: interfaces, port: port)
        func fromPlan(_ target: BeaconPlan.Target) -> BeaconListener.Target {
            BeaconListener.Target(
                address: target.address, display: target.address.hostAndPort ?? target.description,
                interface: target.interface, interfaceIndex: target.interfaceIndex, kind: target.kind.rawValue)
        }
        func fixed(_ text: String) throws -> BeaconListener.Target {
            let address = try Node.socketAddress(text, defaultPort: port)
            return BeaconListener.Target(
                address: address, display: address.hostAndPort ?? text, interface: nil, interfaceIndex: nil,
                kind: "fixed")
        }
        let targets: [BeaconListener.Target]
        let skipped: [String]
        var mode = "interfaces"
        if let status {
            // The node shows plan targets by their description, `--beacon` ones as given.
            let described = Dictionary(plan.targets.map { ($0.description, $0) }) { first, _ in first }
            if !status.beacons.targets.isEmpty, status.beacons.targets.allSatisfy({ described[$0] == nil }) {
                mode = "fixed"
            }
            targets = try status.beacons.targets.map { text in try described[text].map(fromPlan) ?? fixed(text) }
            skipped = status.beacons.skipped
        } else if !options.beaconTargets.isEmpty {
            mode = "fixed"
            targets = try options.beaconTargets.map(fixed)
            skipped = []
        } else {
            targets = plan.targets.map(fromPlan)
            skipped = plan.skipped.map(\.description)
        }
        let beacons = DoctorFacts.Beacons(
            port: port, mode: mode,
            targets: targets.map { .init(address: $0.display, interface: $0.interface, kind: $0.kind) },
            skipped: skipped)
        return (beacons, targets)
    }

    /// Known peers with an address, most recently seen first, and `--peer KEY@HOST:PORT`:
    /// connected ones (a session with the running node) and blocked ones are not probed.
    private static func probePeers(
        profile: Profile, options: DoctorOptions, presence: [PeerPresence], group: any EventLoopGroup
    ) async -> [DoctorFacts.PeerCheck] {
        var candidates: [(peer: Peer?, id: NodeID, address: String)] = []
        for text in options.staticPeers {
            guard let target = try? StaticPeer(text), let key = target.key, key != profile.me else { continue }
            let address = target.address.description
            candidates.append(((try? profile.store.peer(key)) ?? nil, key, address))
        }
        let known = ((try? profile.store.peers()) ?? [])
            .filter { $0.address != nil && $0.id != profile.me }
            .sorted { ($0.lastSeenAt ?? .distantPast) > ($1.lastSeenAt ?? .distantPast) }
        for peer in known where !candidates.contains(where: { $0.id == peer.id }) {
            candidates.append((peer, peer.id, peer.address!))
        }
        candidates = Array(candidates.prefix(options.maxPeers))
        let connected = Set(presence.filter(\.connected).map(\.id))
        let probe = HandshakeProbe(
            identity: SigningKeyPair.generate(), networkKey: options.network.key, timeout: options.probeTimeout,
            group: group)
        return await withTaskGroup(of: (Int, DoctorFacts.PeerCheck).self) { tasks in
            for (index, candidate) in candidates.enumerated() {
                tasks.addTask {
                    var check = DoctorFacts.PeerCheck(
                        id: candidate.id.hex, name: candidate.peer?.name ?? candidate.id.shortHex,
                        address: candidate.address, lastSeen: candidate.peer?.lastSeenAt, result: .unreachable)
                    if connected.contains(candidate.id) {
                        check.result = .connected
                    } else if candidate.peer?.trust == .blocked {
                        check.result = .blocked
                    } else if let address = try? HostPort(candidate.address, defaultPort: HostPort.defaultSessionPort) {
                        let outcome = await probe.probe(host: address.host, port: address.port, remote: candidate.id)
                        check.result = outcome.result
                        check.failure = outcome.failure
                        check.detail = outcome.detail
                        check.milliseconds = outcome.milliseconds
                    } else {
                        check.detail = "not an address"
                    }
                    return (index, check)
                }
            }
            var checks: [(Int, DoctorFacts.PeerCheck)] = []
            for await check in tasks { checks.append(check) }
            return checks.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}
