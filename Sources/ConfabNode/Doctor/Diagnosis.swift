/// What the facts of one `confab doctor` run mean, and what to do: a pure function of
/// `DoctorFacts`, so that every rule is tested on made-up facts (`DiagnosisTests` read as
/// its specification). The rules decide which findings there are and what each rests on;
/// `DoctorFinding.text` puts them in words.
///
/// `ok` — the exit status 0 — says that at least one peer works: heard by its beacon,
/// connected to the running node, or answering the probe. Findings come in the order a
/// person would check things: the node, interfaces, ports, what was heard, the firewall,
/// each known peer, and last, when no beacon of this network came, the likely causes and
/// the exact `confab up --peer` to fall back on.
public struct Diagnosis: Sendable, Equatable {
    public var findings: [DoctorFinding]
    public var ok: Bool

    public init(findings: [DoctorFinding], ok: Bool) {
        self.findings = findings
        self.ok = ok
    }

    public init(_ facts: DoctorFacts) {
        let connected = facts.peers.filter { $0.result == .connected }
        let reachable = facts.peers.filter { $0.result == .ok }
        ok = !facts.heard.nodes.isEmpty || !connected.isEmpty || !reachable.isEmpty
        var findings: [DoctorFinding] = []
        findings += Self.node(facts)
        findings += Self.interfaces(facts)
        findings += Self.ports(facts)
        findings += Self.heard(facts, ok: ok)
        findings += Self.echoes(facts)
        findings += Self.firewall(facts)
        findings += Self.peers(facts)
        findings += Self.nothingHeard(facts, ok: ok)
        self.findings = findings
    }

    // MARK: Rules

    static func node(_ facts: DoctorFacts) -> [DoctorFinding] {
        let node = facts.node
        guard node.running else { return [.noNode] }
        var findings: [DoctorFinding] = [.nodeRunning(name: node.name, id: node.id, sessions: node.sessions)]
        if !node.discovery { findings.append(.discoveryOff) }
        return findings
    }

    static func interfaces(_ facts: DoctorFacts) -> [DoctorFinding] {
        let beacons = facts.beacons
        guard beacons.mode == "interfaces" else { return [] }
        guard beacons.targets.isEmpty else {
            return beacons.skipped.isEmpty ? [] : [.skippedInterfaces(beacons.skipped)]
        }
        if !beacons.skipped.isEmpty { return [.noInterface(.skipped(beacons.skipped))] }
        let others = facts.interfaces.filter { $0.up && !$0.loopback }
        return [.noInterface(others.isEmpty ? .onlyLoopback : .noUsableAddress)]
    }

    static func ports(_ facts: DoctorFacts) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        for proto in [DoctorFinding.BlockedPort.Proto.udp, .tcp] {
            let failed = facts.ports.filter {
                $0.proto == proto.rawValue && [.inUse, .denied, .failed].contains($0.state)
            }
            guard let first = failed.first else { continue }
            let blocked = DoctorFinding.BlockedPort(
                proto: proto, port: first.port, addresses: failed.map(\.address),
                reason: first.error ?? first.state.rawValue)
            findings.append(
                first.state == .inUse ? .portInUse(blocked) : .portUnavailable(blocked, denied: first.state == .denied))
        }
        return findings
    }

    static func heard(_ facts: DoctorFacts, ok: Bool) -> [DoctorFinding] {
        let heard = facts.heard
        var findings: [DoctorFinding] = []
        if !heard.nodes.isEmpty { findings.append(.peersHeard(heard.nodes)) }
        if !facts.protocolNotices.isEmpty { findings.append(.otherProtocol(facts.protocolNotices)) }
        if !heard.otherNetworks.isEmpty {
            findings.append(.otherNetwork(heard.otherNetworks, ourTag: facts.network.tag, aPeerWorks: ok))
        }
        if heard.badSignature + heard.malformed > 0 {
            findings.append(
                .badDatagrams(port: facts.beacons.port, badSignature: heard.badSignature, malformed: heard.malformed))
        }
        return findings
    }

    static func echoes(_ facts: DoctorFacts) -> [DoctorFinding] {
        let echoes = facts.echoes
        guard !echoes.isEmpty else { return [] }
        let unsent = echoes.filter { !$0.sent }
        let lost = echoes.filter { $0.sent && !$0.received }
        guard !unsent.isEmpty || !lost.isEmpty else { return [.echoOK(targets: echoes.count)] }
        var findings: [DoctorFinding] = []
        if !unsent.isEmpty { findings.append(.beaconNotSent(unsent)) }
        if !lost.isEmpty { findings.append(.noEcho(targets: lost.map(\.target), port: facts.beacons.port)) }
        return findings
    }

    static func firewall(_ facts: DoctorFacts) -> [DoctorFinding] {
        let rules = facts.firewall.rules
        guard !rules.isEmpty else { return [] }
        return [.firewall(rules: rules, port: facts.beacons.port, nodesHeard: !facts.heard.nodes.isEmpty)]
    }

    static func peers(_ facts: DoctorFacts) -> [DoctorFinding] {
        guard !facts.peers.isEmpty else { return [.noKnownPeers] }
        return facts.peers.map { peer in
            switch peer.result {
            case .connected: .peerConnected(peer)
            case .ok: .peerReachable(peer)
            case .refused: .peerRefused(peer)
            case .timedOut: .peerTimedOut(peer)
            case .unreachable: .peerUnreachable(peer)
            case .blocked: .peerBlocked(peer)
            case .handshakeFailed:
                switch peer.failure {
                case .otherNetwork: .peerOtherNetwork(peer)
                case .otherKey: .peerOtherKey(peer)
                case .noAnswer, nil: .peerHandshakeFailed(peer)
                }
            }
        }
    }

    static func nothingHeard(_ facts: DoctorFacts, ok: Bool) -> [DoctorFinding] {
        guard facts.heard.nodes.isEmpty else { return [] }
        let connected = facts.peers.filter { $0.result == .connected }.count
        if connected > 0 {
            return [.nothingHeard(.expected(seconds: facts.seconds, connected: connected))]
        }
        func unexplained(_ causes: [DoctorFinding.Cause]) -> [DoctorFinding] {
            [
                .nothingHeard(
                    .unexplained(
                        seconds: facts.seconds, port: facts.beacons.port, causes: causes, fallback: fallback(facts),
                        aPeerWorks: ok))
            ]
        }
        guard !facts.beacons.targets.isEmpty else { return unexplained([.noInterface]) }
        var causes: [DoctorFinding.Cause] = []
        if let rule = facts.firewall.rules.first {
            causes.append(.firewallRule(rule, more: facts.firewall.rules.count - 1))
        }
        if !facts.heard.otherNetworks.isEmpty { causes.append(.otherNetworkKey) }
        if !facts.echoes.isEmpty, !facts.echoes.contains(where: \.received) { causes.append(.noEcho) }
        causes.append(.clientIsolation)
        if !facts.firewall.anyRead {
            causes.append(.firewallUnread)
        } else if facts.firewall.rules.isEmpty {
            causes.append(.firewallOnThePeer)
        }
        causes.append(.noNodeRunning)
        return unexplained(causes)
    }

    /// The known peers to dial without beacons: those that answered the probe first,
    /// blocked ones left out.
    static func fallback(_ facts: DoctorFacts) -> DoctorFinding.Fallback {
        let ordered =
            facts.peers.filter { $0.result == .ok } + facts.peers.filter { $0.result != .ok && $0.result != .blocked }
        var addresses: [String] = []
        for peer in ordered {
            if let address = peer.address, !addresses.contains(address) { addresses.append(address) }
        }
        return DoctorFinding.Fallback(addresses: Array(addresses.prefix(3)), restart: facts.node.running)
    }
}
