import ConfabModel

// Over 400 lines on purpose: every finding and all of the doctor's wording in one file, so a
// change of words is read, and reviewed, beside every other.

/// One thing `confab doctor` concluded, with the facts it rests on. `Diagnosis` decides
/// which findings a run has; `text`, and nothing else, puts a finding in words — its stable
/// code, its severity, the message and what to try — for the terminal and `doctor --json`
/// alike.
public enum DoctorFinding: Sendable, Equatable {
    // MARK: The node

    /// No node answered for this data directory: checked as `confab up` would run.
    case noNode
    /// A node answered, with this many sessions: the ports are its own.
    case nodeRunning(name: String?, id: String, sessions: Int)
    /// The running node finds peers only through `--peer` and remembered addresses.
    case discoveryOff

    // MARK: Interfaces

    /// Up interfaces that get no beacon (each with the reason), beside some that do.
    case skippedInterfaces([String])
    /// No interface to send beacons on.
    case noInterface(NoInterface)

    // MARK: Ports

    /// Another socket holds the port without sharing it.
    case portInUse(BlockedPort)
    /// The port cannot be bound for another reason: `denied` when it takes a privilege.
    case portUnavailable(BlockedPort, denied: Bool)

    // MARK: What came to the discovery port

    case peersHeard([DoctorFacts.HeardNode])
    /// Peers on another protocol version, each as `ProtocolNotice` words it.
    case otherProtocol([String])
    /// Nodes whose beacons carry another network's tag; `ourTag` is this node's. With a peer
    /// that works all the same it is a warning, else the problem.
    case otherNetwork([DoctorFacts.HeardNode], ourTag: String, aPeerWorks: Bool)
    case badDatagrams(port: Int, badSignature: Int, malformed: Int)

    // MARK: Our own beacon

    /// The targets a beacon could not be sent to, with the error.
    case beaconNotSent([DoctorFacts.Echo])
    /// Sent to these targets, and never came back.
    case noEcho(targets: [String], port: Int)
    /// Came back from every one of this many targets.
    case echoOK(targets: Int)

    // MARK: The firewall

    /// Rules that may drop discovery: the problem when no node of this network was heard.
    case firewall(rules: [String], port: Int, nodesHeard: Bool)

    // MARK: Known peers, one finding each

    case noKnownPeers
    case peerConnected(DoctorFacts.PeerCheck)
    case peerReachable(DoctorFacts.PeerCheck)
    case peerRefused(DoctorFacts.PeerCheck)
    case peerTimedOut(DoctorFacts.PeerCheck)
    case peerUnreachable(DoctorFacts.PeerCheck)
    case peerBlocked(DoctorFacts.PeerCheck)
    case peerOtherNetwork(DoctorFacts.PeerCheck)
    case peerOtherKey(DoctorFacts.PeerCheck)
    case peerHandshakeFailed(DoctorFacts.PeerCheck)

    // MARK: Nothing heard

    case nothingHeard(Silence)

    public enum NoInterface: Sendable, Equatable {
        /// Every up interface is skipped, each for the reason given.
        case skipped([String])
        case onlyLoopback
        case noUsableAddress
    }

    /// A port that could not be bound, on which addresses, in the system's words.
    public struct BlockedPort: Sendable, Equatable {
        public enum Proto: String, Sendable {
            /// Discovery.
            case udp
            /// Sessions.
            case tcp
        }

        public var proto: Proto
        public var port: Int
        public var addresses: [String]
        public var reason: String

        public init(proto: Proto, port: Int, addresses: [String], reason: String) {
            self.proto = proto
            self.port = port
            self.addresses = addresses
            self.reason = reason
        }
    }

    /// No beacon of this network came during the window.
    public enum Silence: Sendable, Equatable {
        /// The running node has sessions with this many peers: they beacon slowly.
        case expected(seconds: Double, connected: Int)
        /// The likely causes, most likely first, and how to do without beacons. A warning
        /// when a peer works all the same, else the problem.
        case unexplained(seconds: Double, port: Int, causes: [Cause], fallback: Fallback, aPeerWorks: Bool)
    }

    /// Why no beacon may have come.
    public enum Cause: Sendable, Equatable {
        /// Nothing was sent: the other causes cannot be told apart yet.
        case noInterface
        /// The first rule found here, and how many more there are.
        case firewallRule(String, more: Int)
        case otherNetworkKey
        case noEcho
        case clientIsolation
        case firewallUnread
        case firewallOnThePeer
        case noNodeRunning
    }

    /// The exact `confab up --peer` to try without beacons.
    public struct Fallback: Sendable, Equatable {
        /// At most three known peers' addresses, those that answered the probe first; with
        /// none, the command names a placeholder.
        public var addresses: [String]
        /// A node runs: it is restarted, not started.
        public var restart: Bool

        public init(addresses: [String], restart: Bool) {
            self.addresses = addresses
            self.restart = restart
        }
    }

    public enum Severity: String, Sendable, Codable, Comparable {
        case ok, info, warning, problem

        private var rank: Int {
            switch self {
            case .ok: 0
            case .info: 1
            case .warning: 2
            case .problem: 3
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    /// A finding in words: what `confab doctor` prints and `findings` in `--json` holds.
    public struct Text: Sendable, Codable, Equatable {
        /// Stable, for scripts: `peers-heard`, `other-network`, `nothing-heard`, … (docs/doctor.md).
        public var code: String
        public var severity: Severity
        public var message: String
        /// What to try, most likely first; commands quoted exactly.
        public var advice: [String]

        public init(_ code: String, _ severity: Severity, _ message: String, advice: [String] = []) {
            self.code = code
            self.severity = severity
            self.message = message
            self.advice = advice
        }
    }

    public var code: String { text.code }
    public var severity: Severity { text.severity }
    public var message: String { text.message }
    public var advice: [String] { text.advice }
}

extension DoctorFinding: Encodable {
    /// As its words: `doctor --json` shows what the person reads.
    public func encode(to encoder: any Encoder) throws { try text.encode(to: encoder) }
}

// MARK: - Words

extension DoctorFinding {
    public var text: Text {
        switch self {
        case .noNode:
            return Text(
                "no-node", .info,
                "No node is running for this data directory: checked as \"confab up\" would run with these options.")
        case .nodeRunning(let name, let id, let sessions):
            return Text(
                "node-running", .info,
                "A node is running: \(Self.label(name, id)), \(Self.count(sessions, "session")) now; "
                    + "the discovery and session ports are its own.")
        case .discoveryOff:
            return Text(
                "discovery-off", .info,
                "The running node has discovery off: it finds peers only through --peer and the addresses it remembers.",
                advice: ["To find peers by beacons, restart it without --no-discovery."])

        case .skippedInterfaces(let skipped):
            return Text("skipped-interfaces", .info, "No beacons on: \(skipped.joined(separator: "; ")).")
        case .noInterface(let why):
            let reason =
                switch why {
                case .skipped(let skipped): skipped.joined(separator: "; ")
                case .onlyLoopback: "no interface but loopback is up"
                case .noUsableAddress: "no up interface has a usable address"
                }
            return Text(
                "no-interface", .problem, "No interface to send beacons on: \(reason).",
                advice: [
                    "Connect this machine to the LAN (cable or Wi-Fi) and check \"ip addr\": an up interface with an IPv4 address (not /31 or /32) or an IPv6 link-local address gets beacons.",
                    "Or name a peer to dial: confab up --peer HOST:PORT",
                    "Or send beacons where you choose: confab up --beacon ADDR",
                ])

        case .portInUse(let blocked):
            let holder =
                blocked.proto == .udp
                ? " — another program holds it without sharing it"
                : " — another program, or another confab node, listens there"
            return Self.text(blocked, code: "in-use", holder: holder)
        case .portUnavailable(let blocked, let denied):
            return Self.text(
                blocked, code: "unavailable", holder: denied ? " — ports below 1024 need privileges" : "")

        case .peersHeard(let nodes):
            return Text(
                "peers-heard", .ok,
                "Heard \(Self.count(nodes.count, "node")) of this network: \(Self.list(nodes)).")
        case .otherProtocol(let notices):
            return Text(
                "other-protocol", .warning,
                notices.map { TextSanitizer.line($0) + "." }.joined(separator: " "),
                advice: [
                    "\"confab --version\" on each machine shows its release and protocol; upgrade the older one (docs/upgrading.md in Confab's source)."
                ])
        case .otherNetwork(let nodes, let ourTag, let aPeerWorks):
            let n = nodes.count
            let tags = Set(nodes.compactMap(\.tag)).sorted()
            return Text(
                "other-network", aPeerWorks ? .warning : .problem,
                "\(Self.count(n, "node")) on this LAN \(n == 1 ? "uses" : "use") another network key — "
                    + "run \"confab network show\" on both: \(Self.list(nodes)).",
                advice: [
                    "This node's network tag is \(ourTag); theirs \(tags.count == 1 ? "is" : "are") \(tags.joined(separator: ", ")). Nodes meet only when the tags match.",
                    "To join their network: confab network use KEY (their key, handed over out of band), then restart the node.",
                ])
        case .badDatagrams(let port, let badSignature, let malformed):
            var parts: [String] = []
            if badSignature > 0 { parts.append("\(Self.count(badSignature, "datagram")) had a bad signature") }
            if malformed > 0 {
                parts.append("\(Self.count(malformed, "datagram")) \(malformed == 1 ? "was" : "were") not a beacon")
            }
            return Text(
                "bad-datagrams", .warning,
                "On UDP \(port), \(parts.joined(separator: " and ")): another program uses this port, "
                    + "or something on the LAN sends broken or forged beacons.",
                advice: [
                    "See who sends them: tcpdump -ni any udp port \(port)",
                    "If another program uses the port, move discovery, the same on every node: confab up --discovery-port N",
                ])

        case .beaconNotSent(let unsent):
            return Text(
                "beacon-not-sent", .warning,
                "Could not send a beacon to "
                    + unsent.map { "\($0.target)\($0.error.map { " (\($0))" } ?? "")" }.joined(separator: ", ") + ".",
                advice: ["Check that the interface is up and has its address: ip addr"])
        case .noEcho(let targets, let port):
            return Text(
                "no-echo", .warning,
                "Our own beacon did not come back from \(targets.joined(separator: ", ")): "
                    + "the interface may not pass broadcast or multicast, or a firewall here drops UDP \(port).",
                advice: [
                    "A machine normally hears its own broadcast; if it does not, check this machine's firewall rules, and that the interface is really up: ip link"
                ])
        case .echoOK(let targets):
            return Text(
                "echo-ok", .ok,
                "Our own beacon came back from every target (\(targets)): this machine sends and hears beacons.")

        case .firewall(let rules, let port, let nodesHeard):
            return Text(
                "firewall", nodesHeard ? .warning : .problem,
                "Firewall rules here that may drop discovery (UDP \(port)): \(rules.joined(separator: "; ")).",
                advice: [
                    "Allow it before the rule that drops it, e.g. nft insert rule inet filter input udp dport \(port) accept (use the table and chain of the rule above), or iptables -I INPUT -p udp --dport \(port) -j ACCEPT"
                ])

        case .noKnownPeers:
            return Text(
                "no-known-peers", .info,
                "No known peer with an address to probe (a peer's address is remembered once a session with it opens).")
        case .peerConnected(let peer):
            return Text("peer-connected", .ok, "\(Self.who(peer)): connected to the running node.")
        case .peerReachable(let peer):
            return Text(
                "peer-reachable", .ok,
                "\(Self.who(peer)): reachable — TCP connect and handshake\(peer.milliseconds.map { " in \($0) ms" } ?? "")."
            )
        case .peerRefused(let peer):
            return Text(
                "peer-refused", .warning,
                "\(Self.who(peer)): connection refused — nothing listens there: its node is not running, or listens on another port.",
                advice: ["On that machine: confab status (shows where its node listens), or start one: confab up"])
        case .peerTimedOut(let peer):
            return Text(
                "peer-timed-out", .warning,
                "\(Self.who(peer)): no answer in time — the machine is off or elsewhere, or a firewall drops TCP there.",
                advice: ["Check that the machine is on this LAN: ping its address"])
        case .peerUnreachable(let peer):
            return Text(
                "peer-unreachable", .warning,
                "\(Self.who(peer)): unreachable\(Self.detail(peer)) — no route to it from here.",
                advice: ["It may be on another network now; its address changes when it moves"])
        case .peerBlocked(let peer):
            return Text("peer-blocked", .info, "\(Self.who(peer)): blocked here, not probed.")
        case .peerOtherNetwork(let peer):
            return Text(
                "peer-other-network", .warning,
                "\(Self.who(peer)): the handshake was refused — the node there uses another network key.",
                advice: ["Run \"confab network show\" on both: the tags must match"])
        case .peerOtherKey(let peer):
            return Text(
                "peer-other-key", .warning,
                "\(Self.who(peer)): another key answers there, or the node refused us — another node took that address, or the peer made a new identity.",
                advice: ["On that machine: confab whoami (its key), and compare with confab peers here"])
        case .peerHandshakeFailed(let peer):
            return Text(
                "peer-handshake-failed", .warning,
                "\(Self.who(peer)): connected, but the handshake failed\(Self.detail(peer)).")

        case .nothingHeard(.expected(let seconds, let connected)):
            return Text(
                "nothing-heard", .info,
                "No beacon of this network in \(Self.seconds(seconds)), but \(Self.count(connected, "peer")) "
                    + "\(connected == 1 ? "is" : "are") connected: nodes with a session beacon slowly, so this is expected."
            )
        case .nothingHeard(.unexplained(let seconds, let port, let causes, let fallback, let aPeerWorks)):
            return Text(
                "nothing-heard", aPeerWorks ? .warning : .problem,
                "No beacon from any node of this network in \(Self.seconds(seconds)).",
                advice: causes.map { $0.text(port: port) } + [fallback.text])
        }
    }

    private static func text(_ blocked: BlockedPort, code: String, holder: String) -> Text {
        let port = blocked.port
        let what = blocked.proto == .udp ? "UDP port \(port) (discovery)" : "TCP port \(port) (sessions)"
        let advice =
            blocked.proto == .udp
            ? [
                "See which program holds it: ss -lunp 'sport = :\(port)'",
                "Or move discovery to another port, the same on every node: confab up --discovery-port N",
            ]
            : [
                "See which program holds it: ss -ltnp 'sport = :\(port)'",
                "Or accept sessions on another port: confab up --listen [::]:\(port == 65535 ? 7462 : port + 1)",
            ]
        return Text(
            "\(blocked.proto.rawValue)-port-\(code)", .problem,
            "\(what) cannot be bound on \(blocked.addresses.joined(separator: " and ")): \(blocked.reason)\(holder).",
            advice: advice)
    }

    static func label(_ name: String?, _ id: String) -> String {
        let short = String(id.prefix(8))
        guard let name, !name.isEmpty, name != short else { return short }
        return "\(name) (\(short))"
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    static func seconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\((seconds * 10).rounded() / 10) s"
    }

    private static func list(_ nodes: [DoctorFacts.HeardNode]) -> String {
        nodes.map { "\(label($0.name, $0.id)) at \($0.address)" }.joined(separator: ", ")
    }

    private static func who(_ peer: DoctorFacts.PeerCheck) -> String {
        "\(label(peer.name, peer.id))\(peer.address.map { " at \($0)" } ?? "")"
    }

    private static func detail(_ peer: DoctorFacts.PeerCheck) -> String { peer.detail.map { " (\($0))" } ?? "" }
}

extension DoctorFinding.Cause {
    func text(port: Int) -> String {
        switch self {
        case .noInterface:
            "No interface sends beacons (see no-interface above)."
        case .firewallRule(let rule, let more):
            "A firewall rule here drops UDP \(port): \(rule)\(more > 0 ? " (and \(more) more above)" : "")."
        case .otherNetworkKey:
            "The nodes heard use another network key — run \"confab network show\" on both (see other-network above)."
        case .noEcho:
            "Not even our own beacon came back: this interface does not pass broadcast or multicast, or a firewall here drops UDP \(port)."
        case .clientIsolation:
            "Client isolation on Wi-Fi (guest networks, many office and public access points) keeps devices from reaching each other: try another network, or turn isolation off on the access point."
        case .firewallUnread:
            "A firewall dropping UDP \(port), here or on the peer's machine (the rules here could not be read: run sudo nft list ruleset, or sudo iptables -S)."
        case .firewallOnThePeer:
            "A firewall on the peer's machine dropping UDP \(port) (no rule here mentions it)."
        case .noNodeRunning:
            "No other node of this network is running on this LAN now (an idle node of an older version beacons only every 30 s: try --seconds 35)."
        }
    }
}

extension DoctorFinding.Fallback {
    var text: String {
        let restart = restart ? "restart the node with" : "run"
        guard !addresses.isEmpty else {
            return
                "Without beacons, name the peer: \(restart) confab up --peer HOST:7461 (HOST the peer's address; \"confab status\" on the peer shows its port)."
        }
        let flags = addresses.map { "--peer \($0)" }.joined(separator: " ")
        return "Without beacons, dial known peers directly: \(restart) confab up \(flags)"
    }
}
