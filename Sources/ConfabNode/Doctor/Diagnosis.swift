/// What the facts of one `confab doctor` run mean, and what to do: a pure function of
/// `DoctorFacts`, so that every rule is tested on made-up facts (`DiagnosisTests` read as
/// its specification).
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

    /// The finding with this code, if any (for tests and scripts).
    public func finding(_ code: String) -> DoctorFinding? { findings.first { $0.code == code } }

    // MARK: Rules

    static func node(_ facts: DoctorFacts) -> [DoctorFinding] {
        let node = facts.node
        guard node.running else {
            return [
                DoctorFinding(
                    "no-node", .info,
                    "No node is running for this data directory: checked as \"confab up\" would run with these options."
                )
            ]
        }
        var findings = [
            DoctorFinding(
                "node-running", .info,
                "A node is running: \(label(node.name, node.id)), \(count(node.sessions, "session")) now; "
                    + "the discovery and session ports are its own.")
        ]
        if !node.discovery {
            findings.append(
                DoctorFinding(
                    "discovery-off", .info,
                    "The running node has discovery off: it finds peers only through --peer and the addresses it remembers.",
                    advice: ["To find peers by beacons, restart it without --no-discovery."]))
        }
        return findings
    }

    static func interfaces(_ facts: DoctorFacts) -> [DoctorFinding] {
        let beacons = facts.beacons
        guard beacons.mode == "interfaces" else { return [] }
        guard beacons.targets.isEmpty else {
            guard !beacons.skipped.isEmpty else { return [] }
            return [
                DoctorFinding(
                    "skipped-interfaces", .info, "No beacons on: \(beacons.skipped.joined(separator: "; ")).")
            ]
        }
        let others = facts.interfaces.filter { $0.up && !$0.loopback }
        let why =
            !beacons.skipped.isEmpty
            ? beacons.skipped.joined(separator: "; ")
            : others.isEmpty ? "no interface but loopback is up" : "no up interface has a usable address"
        return [
            DoctorFinding(
                "no-interface", .problem, "No interface to send beacons on: \(why).",
                advice: [
                    "Connect this machine to the LAN (cable or Wi-Fi) and check \"ip addr\": an up interface with an IPv4 address (not /31 or /32) or an IPv6 link-local address gets beacons.",
                    "Or name a peer to dial: confab up --peer HOST:PORT",
                    "Or send beacons where you choose: confab up --beacon ADDR",
                ])
        ]
    }

    static func ports(_ facts: DoctorFacts) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        for proto in ["udp", "tcp"] {
            let failed = facts.ports.filter {
                $0.proto == proto && [.inUse, .denied, .failed].contains($0.state)
            }
            guard let first = failed.first else { continue }
            let port = first.port
            let addresses = failed.map(\.address).joined(separator: " and ")
            let reason = first.error ?? first.state.rawValue
            let what = proto == "udp" ? "UDP port \(port) (discovery)" : "TCP port \(port) (sessions)"
            let holder: String
            switch first.state {
            case .inUse:
                holder =
                    proto == "udp"
                    ? " — another program holds it without sharing it"
                    : " — another program, or another confab node, listens there"
            case .denied: holder = " — ports below 1024 need privileges"
            default: holder = ""
            }
            let code = "\(proto)-port-\(first.state == .inUse ? "in-use" : "unavailable")"
            let advice =
                proto == "udp"
                ? [
                    "See which program holds it: ss -lunp 'sport = :\(port)'",
                    "Or move discovery to another port, the same on every node: confab up --discovery-port N",
                ]
                : [
                    "See which program holds it: ss -ltnp 'sport = :\(port)'",
                    "Or accept sessions on another port: confab up --listen [::]:\(port == 65535 ? 7462 : port + 1)",
                ]
            findings.append(
                DoctorFinding(
                    code, .problem, "\(what) cannot be bound on \(addresses): \(reason)\(holder).", advice: advice))
        }
        return findings
    }

    static func heard(_ facts: DoctorFacts, ok: Bool) -> [DoctorFinding] {
        let heard = facts.heard
        var findings: [DoctorFinding] = []
        if !heard.nodes.isEmpty {
            findings.append(
                DoctorFinding(
                    "peers-heard", .ok,
                    "Heard \(count(heard.nodes.count, "node")) of this network: "
                        + heard.nodes.map { "\(label($0.name, $0.id)) at \($0.address)" }.joined(separator: ", ")
                        + "."))
        }
        if !heard.otherNetworks.isEmpty {
            let n = heard.otherNetworks.count
            let tags = Set(heard.otherNetworks.compactMap(\.tag)).sorted()
            findings.append(
                DoctorFinding(
                    "other-network", ok ? .warning : .problem,
                    "\(count(n, "node")) on this LAN \(n == 1 ? "uses" : "use") another network key — "
                        + "run \"confab network show\" on both: "
                        + heard.otherNetworks.map { "\(label($0.name, $0.id)) at \($0.address)" }.joined(
                            separator: ", ") + ".",
                    advice: [
                        "This node's network tag is \(facts.network.tag); theirs \(tags.count == 1 ? "is" : "are") \(tags.joined(separator: ", ")). Nodes meet only when the tags match.",
                        "To join their network: confab network use KEY (their key, handed over out of band), then restart the node.",
                    ]))
        }
        let bad = heard.badSignature + heard.malformed
        if bad > 0 {
            var parts: [String] = []
            if heard.badSignature > 0 {
                parts.append("\(count(heard.badSignature, "datagram")) had a bad signature")
            }
            if heard.malformed > 0 {
                parts.append(
                    "\(count(heard.malformed, "datagram")) \(heard.malformed == 1 ? "was" : "were") not a beacon")
            }
            findings.append(
                DoctorFinding(
                    "bad-datagrams", .warning,
                    "On UDP \(facts.beacons.port), \(parts.joined(separator: " and ")): another program uses this port, "
                        + "or something on the LAN sends broken or forged beacons.",
                    advice: [
                        "See who sends them: tcpdump -ni any udp port \(facts.beacons.port)",
                        "If another program uses the port, move discovery, the same on every node: confab up --discovery-port N",
                    ]))
        }
        return findings
    }

    static func echoes(_ facts: DoctorFacts) -> [DoctorFinding] {
        let echoes = facts.echoes
        guard !echoes.isEmpty else { return [] }
        var findings: [DoctorFinding] = []
        let unsent = echoes.filter { !$0.sent }
        let lost = echoes.filter { $0.sent && !$0.received }
        if !unsent.isEmpty {
            findings.append(
                DoctorFinding(
                    "beacon-not-sent", .warning,
                    "Could not send a beacon to "
                        + unsent.map { "\($0.target)\($0.error.map { " (\($0))" } ?? "")" }.joined(separator: ", ")
                        + ".",
                    advice: ["Check that the interface is up and has its address: ip addr"]))
        }
        if !lost.isEmpty {
            findings.append(
                DoctorFinding(
                    "no-echo", .warning,
                    "Our own beacon did not come back from " + lost.map(\.target).joined(separator: ", ")
                        + ": the interface may not pass broadcast or multicast, or a firewall here drops UDP \(facts.beacons.port).",
                    advice: [
                        "A machine normally hears its own broadcast; if it does not, check this machine's firewall rules, and that the interface is really up: ip link"
                    ]))
        }
        if unsent.isEmpty, lost.isEmpty {
            findings.append(
                DoctorFinding(
                    "echo-ok", .ok,
                    "Our own beacon came back from every target (\(echoes.count)): this machine sends and hears beacons."
                ))
        }
        return findings
    }

    static func firewall(_ facts: DoctorFacts) -> [DoctorFinding] {
        let rules = facts.firewall.rules
        guard !rules.isEmpty else { return [] }
        let port = facts.beacons.port
        return [
            DoctorFinding(
                "firewall", facts.heard.nodes.isEmpty ? .problem : .warning,
                "Firewall rules here that may drop discovery (UDP \(port)): \(rules.joined(separator: "; ")).",
                advice: [
                    "Allow it before the rule that drops it, e.g. nft insert rule inet filter input udp dport \(port) accept (use the table and chain of the rule above), or iptables -I INPUT -p udp --dport \(port) -j ACCEPT"
                ])
        ]
    }

    static func peers(_ facts: DoctorFacts) -> [DoctorFinding] {
        guard !facts.peers.isEmpty else {
            return [
                DoctorFinding(
                    "no-known-peers", .info,
                    "No known peer with an address to probe (a peer's address is remembered once a session with it opens)."
                )
            ]
        }
        return facts.peers.map { peer in
            let who = "\(label(peer.name, peer.id))\(peer.address.map { " at \($0)" } ?? "")"
            let detail = peer.detail.map { " (\($0))" } ?? ""
            switch peer.result {
            case .connected:
                return DoctorFinding("peer-connected", .ok, "\(who): connected to the running node.")
            case .ok:
                return DoctorFinding(
                    "peer-reachable", .ok,
                    "\(who): reachable — TCP connect and handshake\(peer.milliseconds.map { " in \($0) ms" } ?? "").")
            case .refused:
                return DoctorFinding(
                    "peer-refused", .warning,
                    "\(who): connection refused — nothing listens there: its node is not running, or listens on another port.",
                    advice: ["On that machine: confab status (shows where its node listens), or start one: confab up"])
            case .timedOut:
                return DoctorFinding(
                    "peer-timed-out", .warning,
                    "\(who): no answer in time — the machine is off or elsewhere, or a firewall drops TCP there.",
                    advice: ["Check that the machine is on this LAN: ping its address"])
            case .unreachable:
                return DoctorFinding(
                    "peer-unreachable", .warning, "\(who): unreachable\(detail) — no route to it from here.",
                    advice: ["It may be on another network now; its address changes when it moves"])
            case .blocked:
                return DoctorFinding("peer-blocked", .info, "\(who): blocked here, not probed.")
            case .handshakeFailed:
                switch peer.failure {
                case .otherNetwork:
                    return DoctorFinding(
                        "peer-other-network", .warning,
                        "\(who): the handshake was refused — the node there uses another network key.",
                        advice: ["Run \"confab network show\" on both: the tags must match"])
                case .otherKey:
                    return DoctorFinding(
                        "peer-other-key", .warning,
                        "\(who): another key answers there, or the node refused us — another node took that address, or the peer made a new identity.",
                        advice: ["On that machine: confab whoami (its key), and compare with confab peers here"])
                case .noAnswer, nil:
                    return DoctorFinding(
                        "peer-handshake-failed", .warning, "\(who): connected, but the handshake failed\(detail).")
                }
            }
        }
    }

    static func nothingHeard(_ facts: DoctorFacts, ok: Bool) -> [DoctorFinding] {
        guard facts.heard.nodes.isEmpty else { return [] }
        let seconds = formatSeconds(facts.seconds)
        let connected = facts.peers.filter { $0.result == .connected }.count
        if connected > 0 {
            return [
                DoctorFinding(
                    "nothing-heard", .info,
                    "No beacon of this network in \(seconds), but \(count(connected, "peer")) \(connected == 1 ? "is" : "are") connected: "
                        + "nodes with a session beacon slowly, so this is expected.")
            ]
        }
        let port = facts.beacons.port
        guard !facts.beacons.targets.isEmpty else {
            // Nothing was sent anywhere: the other causes cannot be told apart yet.
            return [
                DoctorFinding(
                    "nothing-heard", ok ? .warning : .problem,
                    "No beacon from any node of this network in \(seconds).",
                    advice: ["No interface sends beacons (see no-interface above).", fallback(facts)])
            ]
        }
        var causes: [String] = []
        if let rule = facts.firewall.rules.first {
            causes.append(
                "A firewall rule here drops UDP \(port): \(rule)\(facts.firewall.rules.count > 1 ? " (and \(facts.firewall.rules.count - 1) more above)" : "")."
            )
        }
        if !facts.heard.otherNetworks.isEmpty {
            causes.append(
                "The nodes heard use another network key — run \"confab network show\" on both (see other-network above)."
            )
        }
        if !facts.echoes.isEmpty, !facts.echoes.contains(where: \.received) {
            causes.append(
                "Not even our own beacon came back: this interface does not pass broadcast or multicast, or a firewall here drops UDP \(port)."
            )
        }
        causes.append(
            "Client isolation on Wi-Fi (guest networks, many office and public access points) keeps devices from reaching each other: try another network, or turn isolation off on the access point."
        )
        if !facts.firewall.anyRead {
            causes.append(
                "A firewall dropping UDP \(port), here or on the peer's machine (the rules here could not be read: run sudo nft list ruleset, or sudo iptables -S)."
            )
        } else if facts.firewall.rules.isEmpty {
            causes.append(
                "A firewall on the peer's machine dropping UDP \(port) (no rule here mentions it).")
        }
        causes.append(
            "No other node of this network is running on this LAN now (an idle node of an older version beacons only every 30 s: try --seconds 35)."
        )
        causes.append(fallback(facts))
        return [
            DoctorFinding(
                "nothing-heard", ok ? .warning : .problem,
                "No beacon from any node of this network in \(seconds).", advice: causes)
        ]
    }

    /// The exact `confab up --peer` to try: the addresses of known peers, those that
    /// answered the probe first.
    static func fallback(_ facts: DoctorFacts) -> String {
        let ordered =
            facts.peers.filter { $0.result == .ok } + facts.peers.filter { $0.result != .ok && $0.result != .blocked }
        var addresses: [String] = []
        for peer in ordered {
            if let address = peer.address, !addresses.contains(address) { addresses.append(address) }
        }
        let restart = facts.node.running ? "restart the node with" : "run"
        guard !addresses.isEmpty else {
            return
                "Without beacons, name the peer: \(restart) confab up --peer HOST:7461 (HOST the peer's address; \"confab status\" on the peer shows its port)."
        }
        let flags = addresses.prefix(3).map { "--peer \($0)" }.joined(separator: " ")
        return "Without beacons, dial known peers directly: \(restart) confab up \(flags)"
    }

    // MARK: Words

    static func label(_ name: String?, _ id: String) -> String {
        let short = String(id.prefix(8))
        guard let name, !name.isEmpty, name != short else { return short }
        return "\(name) (\(short))"
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    static func formatSeconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\((seconds * 10).rounded() / 10) s"
    }
}
