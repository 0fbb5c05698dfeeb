import ConfabClient
import Foundation
import Testing

@testable import ConfabNode

/// What `confab doctor` concludes from what it found: each test is one rule of `Diagnosis`,
/// on made-up facts — a healthy LAN, then each thing that can stand in the way.
@Suite("Doctor: diagnosis") struct DiagnosisTests {
    static let me = String(repeating: "aa", count: 32)
    static let bob = String(repeating: "b0", count: 32)
    static let carol = String(repeating: "c0", count: 32)
    static let dave = String(repeating: "d0", count: 32)

    /// A machine on one LAN with one interface, nothing heard yet, nothing probed.
    static func facts(
        running: Bool = false, heard: DoctorFacts.Heard = .init(), peers: [DoctorFacts.PeerCheck] = [],
        targets: [DoctorFacts.Target] = [.init(address: "10.0.0.255:7460", interface: "eth0", kind: "broadcast")],
        skipped: [String] = [], interfaces: [DoctorFacts.Interface]? = nil, ports: [DoctorFacts.Port]? = nil,
        echoes: [DoctorFacts.Echo]? = nil,
        firewall: DoctorFacts.Firewall = .init(tools: [
            .init(name: "nft", state: "read")
        ])
    ) -> DoctorFacts {
        DoctorFacts(
            node: .init(running: running, id: me, name: "alice"),
            network: .init(tag: "5221827fe1260bbd", source: "default", isDefault: true), seconds: 3,
            interfaces: interfaces ?? [
                .init(name: "lo", up: true, loopback: true, addresses: ["127.0.0.1/8"]),
                .init(name: "eth0", up: true, addresses: ["10.0.0.1/24"]),
            ],
            beacons: .init(port: 7460, mode: "interfaces", targets: targets, skipped: skipped),
            listen: ["[::]:7461"],
            ports: ports ?? [
                .init(proto: "udp", address: "0.0.0.0:7460", port: 7460, state: running ? .node : .free),
                .init(proto: "tcp", address: "[::]:7461", port: 7461, state: running ? .node : .free),
            ],
            heard: heard,
            echoes: echoes
                ?? targets.map { .init(target: $0.address, interface: $0.interface, sent: true, received: true) },
            peers: peers, firewall: firewall)
    }

    static func peer(
        _ id: String, _ name: String, _ result: DoctorFacts.PeerCheck.Result,
        failure: DoctorFacts.PeerCheck.Failure? = nil, address: String = "10.0.0.2:7461"
    ) -> DoctorFacts.PeerCheck {
        .init(id: id, name: name, address: address, lastSeen: nil, result: result, failure: failure)
    }

    static func node(_ id: String, _ name: String?, at address: String, tag: String? = nil) -> DoctorFacts.HeardNode {
        .init(id: id, name: name, address: address, role: "person", tag: tag)
    }

    static let fixedTag = "5221827fe1260bbd"

    /// What the diagnosis says of silence, if it says anything.
    static func silence(_ diagnosis: Diagnosis) -> DoctorFinding.Silence? {
        for case .nothingHeard(let silence) in diagnosis.findings { return silence }
        return nil
    }

    static func causes(_ diagnosis: Diagnosis) -> [DoctorFinding.Cause]? {
        guard case .unexplained(_, _, let causes, _, _) = silence(diagnosis) else { return nil }
        return causes
    }

    static func fallback(_ diagnosis: Diagnosis) -> DoctorFinding.Fallback? {
        guard case .unexplained(_, _, _, let fallback, _) = silence(diagnosis) else { return nil }
        return fallback
    }

    /// Silence on a LAN where this machine hears itself and its firewall passes discovery.
    static func unexplained(
        _ causes: [DoctorFinding.Cause] = [.clientIsolation, .firewallOnThePeer, .noNodeRunning],
        dialling addresses: [String] = [], restart: Bool = false, aPeerWorks: Bool = false
    ) -> DoctorFinding.Silence {
        .unexplained(
            seconds: 3, port: 7460, causes: causes, fallback: .init(addresses: addresses, restart: restart),
            aPeerWorks: aPeerWorks)
    }

    static func isPortFinding(_ finding: DoctorFinding) -> Bool {
        switch finding {
        case .portInUse, .portUnavailable: true
        default: false
        }
    }

    static func isNoInterface(_ finding: DoctorFinding) -> Bool {
        if case .noInterface = finding { return true }
        return false
    }

    // MARK: Working

    @Test func aPeerHeardIsHealthyAndExitsZero() throws {
        let bob = Self.node(Self.bob, "bob", at: "10.0.0.2:7461")
        let diagnosis = Diagnosis(Self.facts(heard: .init(nodes: [bob])))
        #expect(diagnosis.ok)
        #expect(diagnosis.findings.contains(.peersHeard([bob])))
        #expect(diagnosis.findings.contains(.echoOK(targets: 1)))
        #expect(Self.silence(diagnosis) == nil)
        #expect(!diagnosis.findings.contains { $0.severity == .problem })
    }

    @Test func aPeerThatAnswersTheProbeIsEnoughForExitZero() throws {
        let bob = Self.peer(Self.bob, "bob", .ok)
        let diagnosis = Diagnosis(Self.facts(peers: [bob]))
        #expect(diagnosis.ok)
        #expect(diagnosis.findings.contains(.peerReachable(bob)))
        // Nothing heard is still said, but a peer works without beacons.
        #expect(Self.silence(diagnosis) == Self.unexplained(dialling: ["10.0.0.2:7461"], aPeerWorks: true))
    }

    @Test func aConnectedPeerIsNotProbedAndSilenceIsExpected() throws {
        let bob = Self.peer(Self.bob, "bob", .connected)
        let diagnosis = Diagnosis(Self.facts(running: true, peers: [bob]))
        #expect(diagnosis.ok)
        #expect(diagnosis.findings.contains(.nodeRunning(name: "alice", id: Self.me, sessions: 0)))
        #expect(diagnosis.findings.contains(.peerConnected(bob)))
        #expect(Self.silence(diagnosis) == .expected(seconds: 3, connected: 1))
    }

    // MARK: Nothing works

    @Test func nothingHeardAndNoPeerIsAProblemWithCausesAndTheFallback() throws {
        let bob = Self.peer(Self.bob, "bob", .timedOut)
        let diagnosis = Diagnosis(Self.facts(peers: [bob]))
        #expect(!diagnosis.ok)
        #expect(Self.silence(diagnosis) == Self.unexplained(dialling: ["10.0.0.2:7461"]))
        #expect(diagnosis.findings.contains(.peerTimedOut(bob)))
    }

    @Test func peersThatAnsweredAreDialledFirstAndBlockedOnesNever() throws {
        let diagnosis = Diagnosis(
            Self.facts(peers: [
                Self.peer(Self.bob, "bob", .refused, address: "10.0.0.2:7461"),
                Self.peer(Self.carol, "carol", .blocked, address: "10.0.0.3:7461"),
                Self.peer(Self.dave, "dave", .ok, address: "10.0.0.4:7461"),
            ]))
        #expect(Self.fallback(diagnosis) == .init(addresses: ["10.0.0.4:7461", "10.0.0.2:7461"], restart: false))
    }

    @Test func withNoKnownAddressTheFallbackNamesThePlaceholder() throws {
        let diagnosis = Diagnosis(Self.facts())
        #expect(diagnosis.findings.contains(.noKnownPeers))
        #expect(Self.fallback(diagnosis) == .init(addresses: [], restart: false))
    }

    @Test func withARunningNodeTheFallbackSaysRestart() throws {
        let diagnosis = Diagnosis(Self.facts(running: true, peers: [Self.peer(Self.bob, "bob", .refused)]))
        #expect(Self.fallback(diagnosis) == .init(addresses: ["10.0.0.2:7461"], restart: true))
    }

    @Test func unreadableFirewallRulesAreSaidToBeUnreadable() throws {
        let diagnosis = Diagnosis(
            Self.facts(firewall: .init(tools: [.init(name: "nft", state: "failed", error: "Operation not permitted")])))
        #expect(Self.causes(diagnosis) == [.clientIsolation, .firewallUnread, .noNodeRunning])
    }

    // MARK: Another network

    @Test func nodesOfAnotherNetworkAreCountedAndNamed() throws {
        let others = [
            Self.node(Self.bob, "bob", at: "10.0.0.2:7461", tag: "0011223344556677"),
            Self.node(Self.carol, nil, at: "10.0.0.3:7461", tag: "0011223344556677"),
        ]
        let diagnosis = Diagnosis(Self.facts(heard: .init(otherNetworks: others)))
        // With nothing of this network heard, it is the problem, and the first cause listed.
        #expect(diagnosis.findings.contains(.otherNetwork(others, ourTag: Self.fixedTag, aPeerWorks: false)))
        #expect(Self.causes(diagnosis)?.first == .otherNetworkKey)
        #expect(!diagnosis.ok)
    }

    @Test func oneNodeOfAnotherNetworkBesideAWorkingPeerIsAWarning() throws {
        let other = Self.node(Self.bob, "bob", at: "10.0.0.2:7461", tag: "0011223344556677")
        let heard = DoctorFacts.Heard(
            nodes: [Self.node(Self.carol, "carol", at: "10.0.0.3:7461")], otherNetworks: [other])
        let diagnosis = Diagnosis(Self.facts(heard: heard))
        #expect(diagnosis.findings.contains(.otherNetwork([other], ourTag: Self.fixedTag, aPeerWorks: true)))
    }

    @Test func aPeerWhoseHandshakeFailsForItsNetworkSaysSo() throws {
        let otherNetwork = Self.peer(Self.bob, "bob", .handshakeFailed, failure: .otherNetwork)
        #expect(Diagnosis(Self.facts(peers: [otherNetwork])).findings.contains(.peerOtherNetwork(otherNetwork)))
        let otherKey = Self.peer(Self.bob, "bob", .handshakeFailed, failure: .otherKey)
        #expect(Diagnosis(Self.facts(peers: [otherKey])).findings.contains(.peerOtherKey(otherKey)))
        let silent = Self.peer(Self.bob, "bob", .handshakeFailed, failure: .noAnswer)
        #expect(Diagnosis(Self.facts(peers: [silent])).findings.contains(.peerHandshakeFailed(silent)))
    }

    @Test func eachPeerGetsTheFindingOfItsProbe() throws {
        let peers = [
            Self.peer(Self.bob, "bob", .refused), Self.peer(Self.carol, "carol", .unreachable),
            Self.peer(Self.dave, "dave", .blocked), Self.peer(Self.bob, "bob", .handshakeFailed),
        ]
        let diagnosis = Diagnosis(Self.facts(peers: peers))
        #expect(
            Array(diagnosis.findings.drop { !$0.code.hasPrefix("peer-") }.prefix(4)) == [
                .peerRefused(peers[0]), .peerUnreachable(peers[1]), .peerBlocked(peers[2]),
                .peerHandshakeFailed(peers[3]),
            ])
    }

    // MARK: The firewall

    @Test func aFirewallRuleIsNamedAsTheFirstCause() throws {
        let rule = "nft inet filter input: udp dport 7460 drop"
        let diagnosis = Diagnosis(
            Self.facts(
                echoes: [.init(target: "10.0.0.255:7460", sent: true, received: false)],
                firewall: .init(tools: [.init(name: "nft", state: "read")], rules: [rule, "nft ip filter input: drop"]))
        )
        #expect(
            diagnosis.findings.contains(
                .firewall(rules: [rule, "nft ip filter input: drop"], port: 7460, nodesHeard: false)))
        #expect(diagnosis.findings.contains(.noEcho(targets: ["10.0.0.255:7460"], port: 7460)))
        #expect(Self.causes(diagnosis) == [.firewallRule(rule, more: 1), .noEcho, .clientIsolation, .noNodeRunning])
    }

    @Test func aFirewallRuleBesideAPeerHeardIsOnlyAWarning() throws {
        let rule = "nft inet filter input: udp dport 7460 drop"
        let diagnosis = Diagnosis(
            Self.facts(
                heard: .init(nodes: [Self.node(Self.bob, "bob", at: "10.0.0.2:7461")]),
                firewall: .init(tools: [.init(name: "nft", state: "read")], rules: [rule])))
        #expect(diagnosis.findings.contains(.firewall(rules: [rule], port: 7460, nodesHeard: true)))
        #expect(Self.silence(diagnosis) == nil)
    }

    // MARK: Interfaces and ports

    @Test func noUsableInterfaceIsAProblemNamingWhy() throws {
        let onlyLoopback = Diagnosis(
            Self.facts(
                targets: [], interfaces: [.init(name: "lo", up: true, loopback: true, addresses: ["127.0.0.1/8"])],
                echoes: []))
        #expect(onlyLoopback.findings.contains(.noInterface(.onlyLoopback)))
        // Nothing was sent: the only cause is that, then the fallback.
        #expect(Self.causes(onlyLoopback) == [.noInterface])

        let wg0 = "wg0: point-to-point link: nothing to broadcast to"
        let skipped = Diagnosis(Self.facts(targets: [], skipped: [wg0]))
        #expect(skipped.findings.contains(.noInterface(.skipped([wg0]))))

        let noAddress = Diagnosis(Self.facts(targets: [], interfaces: [.init(name: "eth0", up: true)], echoes: []))
        #expect(noAddress.findings.contains(.noInterface(.noUsableAddress)))
    }

    @Test func skippedInterfacesBesideUsableOnesAreOnlyMentioned() throws {
        let tun0 = "tun0: point-to-point link: nothing to broadcast to"
        let diagnosis = Diagnosis(Self.facts(skipped: [tun0]))
        #expect(diagnosis.findings.contains(.skippedInterfaces([tun0])))
        #expect(!diagnosis.findings.contains(where: Self.isNoInterface))
    }

    @Test func fixedTargetsAreNeverANoInterfaceProblem() throws {
        var facts = Self.facts(targets: [])
        facts.beacons.mode = "fixed"
        #expect(!Diagnosis(facts).findings.contains(where: Self.isNoInterface))
    }

    @Test func aDiscoveryPortHeldByAnotherProgramNamesItAndHowToFindIt() throws {
        let diagnosis = Diagnosis(
            Self.facts(ports: [
                .init(
                    proto: "udp", address: "0.0.0.0:7460", port: 7460, state: .inUse, error: "Address already in use"),
                .init(proto: "udp", address: "[::]:7460", port: 7460, state: .inUse, error: "Address already in use"),
                .init(proto: "tcp", address: "[::]:7461", port: 7461, state: .free),
            ]))
        #expect(
            diagnosis.findings.filter(Self.isPortFinding) == [
                .portInUse(
                    .init(
                        proto: .udp, port: 7460, addresses: ["0.0.0.0:7460", "[::]:7460"],
                        reason: "Address already in use"))
            ])
    }

    @Test func aSessionPortHeldByAnotherProgramSuggestsListenElsewhere() throws {
        let diagnosis = Diagnosis(
            Self.facts(ports: [
                .init(proto: "tcp", address: "[::]:7461", port: 7461, state: .inUse, error: "Address already in use")
            ]))
        #expect(
            diagnosis.findings.filter(Self.isPortFinding) == [
                .portInUse(.init(proto: .tcp, port: 7461, addresses: ["[::]:7461"], reason: "Address already in use"))
            ])
    }

    @Test func aPortBelow1024IsUnavailableForWantOfPrivilege() throws {
        let diagnosis = Diagnosis(
            Self.facts(ports: [
                .init(proto: "udp", address: "0.0.0.0:7460", port: 7460, state: .free),
                .init(proto: "tcp", address: "[::]:80", port: 80, state: .denied, error: "Permission denied"),
            ]))
        #expect(
            diagnosis.findings.filter(Self.isPortFinding) == [
                .portUnavailable(
                    .init(proto: .tcp, port: 80, addresses: ["[::]:80"], reason: "Permission denied"), denied: true)
            ])
    }

    @Test func theRunningNodesOwnPortsAreNoProblem() throws {
        let diagnosis = Diagnosis(Self.facts(running: true))
        #expect(!diagnosis.findings.contains(where: Self.isPortFinding))
        #expect(diagnosis.findings.first == .nodeRunning(name: "alice", id: Self.me, sessions: 0))
    }

    @Test func noIPv6IsNotAPortProblem() throws {
        let diagnosis = Diagnosis(
            Self.facts(ports: [
                .init(proto: "udp", address: "0.0.0.0:7460", port: 7460, state: .free),
                .init(
                    proto: "udp", address: "[::]:7460", port: 7460, state: .unsupported,
                    error: "Address family not supported"),
            ]))
        #expect(!diagnosis.findings.contains(where: Self.isPortFinding))
    }

    // MARK: Odd datagrams, lost echoes

    @Test func badSignaturesAndStrayDatagramsAreCounted() throws {
        let diagnosis = Diagnosis(Self.facts(heard: .init(badSignature: 3, malformed: 1)))
        #expect(diagnosis.findings.contains(.badDatagrams(port: 7460, badSignature: 3, malformed: 1)))
    }

    @Test func aBeaconThatCouldNotBeSentIsNamed() throws {
        let unsent = DoctorFacts.Echo(
            target: "10.0.0.255:7460", sent: false, received: false, error: "Network is unreachable")
        let diagnosis = Diagnosis(Self.facts(echoes: [unsent]))
        #expect(diagnosis.findings.contains(.beaconNotSent([unsent])))
        #expect(!diagnosis.findings.contains(.echoOK(targets: 1)))
    }

    // MARK: Words

    /// Scripts read the codes (docs/doctor.md lists them): each kind of finding has its own, and
    /// keeps it.
    @Test func everyFindingHasItsStableCode() throws {
        let peer = Self.peer(Self.bob, "bob", .ok)
        let port = DoctorFinding.BlockedPort(proto: .udp, port: 7460, addresses: ["0.0.0.0:7460"], reason: "x")
        var tcp = port
        tcp.proto = .tcp
        let codes: [(DoctorFinding, String)] = [
            (.noNode, "no-node"), (.nodeRunning(name: nil, id: Self.me, sessions: 0), "node-running"),
            (.discoveryOff, "discovery-off"), (.noInterface(.onlyLoopback), "no-interface"),
            (.skippedInterfaces([]), "skipped-interfaces"), (.portInUse(port), "udp-port-in-use"),
            (.portInUse(tcp), "tcp-port-in-use"), (.portUnavailable(port, denied: true), "udp-port-unavailable"),
            (.portUnavailable(tcp, denied: false), "tcp-port-unavailable"), (.peersHeard([]), "peers-heard"),
            (.otherNetwork([], ourTag: "", aPeerWorks: false), "other-network"),
            (.badDatagrams(port: 1, badSignature: 1, malformed: 0), "bad-datagrams"), (.echoOK(targets: 1), "echo-ok"),
            (.noEcho(targets: [], port: 1), "no-echo"), (.beaconNotSent([]), "beacon-not-sent"),
            (.firewall(rules: [], port: 1, nodesHeard: false), "firewall"), (.noKnownPeers, "no-known-peers"),
            (.peerConnected(peer), "peer-connected"), (.peerReachable(peer), "peer-reachable"),
            (.peerRefused(peer), "peer-refused"), (.peerTimedOut(peer), "peer-timed-out"),
            (.peerUnreachable(peer), "peer-unreachable"), (.peerBlocked(peer), "peer-blocked"),
            (.peerOtherNetwork(peer), "peer-other-network"), (.peerOtherKey(peer), "peer-other-key"),
            (.peerHandshakeFailed(peer), "peer-handshake-failed"),
            (.nothingHeard(.expected(seconds: 1, connected: 1)), "nothing-heard"),
            (.nothingHeard(Self.unexplained()), "nothing-heard"),
        ]
        for (finding, code) in codes { #expect(finding.code == code, "\(finding)") }
    }

    @Test func whatWasHeardInWords() throws {
        let bob = Self.node(Self.bob, "bob", at: "10.0.0.2:7461")
        let heard = DoctorFinding.peersHeard([bob])
        #expect(heard.severity == .ok)
        #expect(heard.message == "Heard 1 node of this network: bob (b0b0b0b0) at 10.0.0.2:7461.")

        let two = DoctorFinding.otherNetwork(
            [
                Self.node(Self.bob, "bob", at: "10.0.0.2:7461", tag: "0011223344556677"),
                Self.node(Self.carol, nil, at: "10.0.0.3:7461", tag: "0011223344556677"),
            ], ourTag: Self.fixedTag, aPeerWorks: false)
        #expect(two.severity == .problem)
        #expect(
            two.message
                == "2 nodes on this LAN use another network key — run \"confab network show\" on both: bob (b0b0b0b0) at 10.0.0.2:7461, c0c0c0c0 at 10.0.0.3:7461."
        )
        #expect(
            two.advice.first
                == "This node's network tag is 5221827fe1260bbd; theirs is 0011223344556677. Nodes meet only when the tags match."
        )
        let one = DoctorFinding.otherNetwork(
            [Self.node(Self.bob, "bob", at: "10.0.0.2:7461", tag: "0011223344556677")], ourTag: Self.fixedTag,
            aPeerWorks: true)
        #expect(one.severity == .warning)
        #expect(
            one.message.hasPrefix("1 node on this LAN uses another network key — run \"confab network show\" on both"))

        #expect(
            DoctorFinding.badDatagrams(port: 7460, badSignature: 3, malformed: 1).message
                == "On UDP 7460, 3 datagrams had a bad signature and 1 datagram was not a beacon: another program uses this port, or something on the LAN sends broken or forged beacons."
        )
    }

    @Test func peersInWords() throws {
        #expect(
            DoctorFinding.peerConnected(Self.peer(Self.bob, "bob", .connected)).message
                == "bob (b0b0b0b0) at 10.0.0.2:7461: connected to the running node.")
        var reachable = Self.peer(Self.bob, "bob", .ok)
        reachable.milliseconds = 18
        #expect(
            DoctorFinding.peerReachable(reachable).message
                == "bob (b0b0b0b0) at 10.0.0.2:7461: reachable — TCP connect and handshake in 18 ms.")
        #expect(
            DoctorFinding.peerOtherNetwork(Self.peer(Self.bob, "bob", .handshakeFailed, failure: .otherNetwork)).message
                == "bob (b0b0b0b0) at 10.0.0.2:7461: the handshake was refused — the node there uses another network key."
        )
        var unreachable = Self.peer(Self.bob, "b0b0b0b0", .unreachable)
        unreachable.detail = "No route to host"
        #expect(
            DoctorFinding.peerUnreachable(unreachable).message
                == "b0b0b0b0 at 10.0.0.2:7461: unreachable (No route to host) — no route to it from here.")
    }

    @Test func silenceInWords() throws {
        let problem = DoctorFinding.nothingHeard(Self.unexplained(dialling: ["10.0.0.2:7461"]))
        #expect(problem.severity == .problem)
        #expect(problem.message == "No beacon from any node of this network in 3 s.")
        #expect(
            problem.advice == [
                "Client isolation on Wi-Fi (guest networks, many office and public access points) keeps devices from reaching each other: try another network, or turn isolation off on the access point.",
                "A firewall on the peer's machine dropping UDP 7460 (no rule here mentions it).",
                "No other node of this network is running on this LAN now (an idle node of an older version beacons only every 30 s: try --seconds 35).",
                "Without beacons, dial known peers directly: run confab up --peer 10.0.0.2:7461",
            ])
        #expect(DoctorFinding.nothingHeard(Self.unexplained(aPeerWorks: true)).severity == .warning)

        let expected = DoctorFinding.nothingHeard(.expected(seconds: 2.5, connected: 1))
        #expect(expected.severity == .info)
        #expect(
            expected.message
                == "No beacon of this network in 2.5 s, but 1 peer is connected: nodes with a session beacon slowly, so this is expected."
        )
        #expect(expected.advice.isEmpty)

        let rule = "nft inet filter input: udp dport 7460 drop"
        let causes = DoctorFinding.nothingHeard(
            Self.unexplained([.firewallRule(rule, more: 0), .firewallRule(rule, more: 2), .noEcho, .firewallUnread])
        )
        .advice
        #expect(
            causes.prefix(4) == [
                "A firewall rule here drops UDP 7460: \(rule).",
                "A firewall rule here drops UDP 7460: \(rule) (and 2 more above).",
                "Not even our own beacon came back: this interface does not pass broadcast or multicast, or a firewall here drops UDP 7460.",
                "A firewall dropping UDP 7460, here or on the peer's machine (the rules here could not be read: run sudo nft list ruleset, or sudo iptables -S).",
            ])
        #expect(
            DoctorFinding.nothingHeard(Self.unexplained([.noInterface])).advice == [
                "No interface sends beacons (see no-interface above).",
                "Without beacons, name the peer: run confab up --peer HOST:7461 (HOST the peer's address; \"confab status\" on the peer shows its port).",
            ])
        #expect(
            DoctorFinding.nothingHeard(
                Self.unexplained([], dialling: ["10.0.0.2:7461", "10.0.0.4:7461"], restart: true)
            )
            .advice == [
                "Without beacons, dial known peers directly: restart the node with confab up --peer 10.0.0.2:7461 --peer 10.0.0.4:7461"
            ])
    }

    @Test func interfacesAndPortsInWords() throws {
        let loopback = DoctorFinding.noInterface(.onlyLoopback)
        #expect(loopback.severity == .problem)
        #expect(loopback.message == "No interface to send beacons on: no interface but loopback is up.")
        #expect(loopback.advice.contains("Or name a peer to dial: confab up --peer HOST:PORT"))
        #expect(
            DoctorFinding.noInterface(.skipped(["wg0: point-to-point link: nothing to broadcast to"])).message
                == "No interface to send beacons on: wg0: point-to-point link: nothing to broadcast to.")
        #expect(DoctorFinding.skippedInterfaces(["tun0: down"]).severity == .info)

        let udp = DoctorFinding.portInUse(
            .init(proto: .udp, port: 7460, addresses: ["0.0.0.0:7460", "[::]:7460"], reason: "Address already in use"))
        #expect(udp.severity == .problem)
        #expect(
            udp.message
                == "UDP port 7460 (discovery) cannot be bound on 0.0.0.0:7460 and [::]:7460: Address already in use — another program holds it without sharing it."
        )
        #expect(udp.advice.first == "See which program holds it: ss -lunp 'sport = :7460'")
        #expect(udp.advice.last?.contains("--discovery-port N") == true)
        let tcp = DoctorFinding.portInUse(
            .init(proto: .tcp, port: 7461, addresses: ["[::]:7461"], reason: "Address already in use"))
        #expect(
            tcp.advice == [
                "See which program holds it: ss -ltnp 'sport = :7461'",
                "Or accept sessions on another port: confab up --listen [::]:7462",
            ])
        #expect(
            DoctorFinding.portUnavailable(
                .init(proto: .tcp, port: 80, addresses: ["[::]:80"], reason: "Permission denied"), denied: true
            ).message
                == "TCP port 80 (sessions) cannot be bound on [::]:80: Permission denied — ports below 1024 need privileges."
        )
        #expect(
            DoctorFinding.nodeRunning(name: "alice", id: Self.me, sessions: 2).message
                == "A node is running: alice (aaaaaaaa), 2 sessions now; the discovery and session ports are its own.")
    }

    @Test func beaconsAndTheFirewallInWords() throws {
        #expect(
            DoctorFinding.beaconNotSent([
                .init(target: "10.0.0.255:7460", sent: false, received: false, error: "Network is unreachable")
            ]).message == "Could not send a beacon to 10.0.0.255:7460 (Network is unreachable).")
        #expect(
            DoctorFinding.noEcho(targets: ["10.0.0.255:7460"], port: 7460).message
                == "Our own beacon did not come back from 10.0.0.255:7460: the interface may not pass broadcast or multicast, or a firewall here drops UDP 7460."
        )
        let rule = "nft inet filter input: udp dport 7460 drop"
        let firewall = DoctorFinding.firewall(rules: [rule], port: 7460, nodesHeard: false)
        #expect(firewall.severity == .problem)
        #expect(firewall.message == "Firewall rules here that may drop discovery (UDP 7460): \(rule).")
        #expect(DoctorFinding.firewall(rules: [rule], port: 7460, nodesHeard: true).severity == .warning)
    }

    // MARK: The report

    @Test func theReportIsOneFlatJSONObject() throws {
        let facts = Self.facts(heard: .init(nodes: [Self.node(Self.bob, "bob", at: "10.0.0.2:7461")]))
        let report = DoctorReport(facts: facts, diagnosis: Diagnosis(facts), elapsed: 3.0421)
        let line = try JSONOutput.line(report)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        for key in [
            "node", "network", "interfaces", "beacons", "listen", "ports", "heard", "echoes", "peers", "firewall",
            "findings", "ok", "elapsed",
        ] {
            #expect(object[key] != nil, "missing \(key)")
        }
        #expect(object["ok"] as? Bool == true)
        #expect(object["elapsed"] as? Double == 3.04)
        #expect(try JSONOutput.decoder().decode(DoctorFacts.self, from: Data(line.utf8)) == facts)
        // Findings travel as their words.
        struct Findings: Decodable { var findings: [DoctorFinding.Text] }
        let findings = try JSONOutput.decoder().decode(Findings.self, from: Data(line.utf8)).findings
        #expect(findings == report.findings.map(\.text))
        #expect(findings.map(\.code) == ["no-node", "peers-heard", "echo-ok", "no-known-peers"])
        let heard = try #require(
            (object["findings"] as? [[String: Any]])?.first { $0["code"] as? String == "peers-heard" })
        #expect(Set(heard.keys) == ["code", "severity", "message", "advice"])
    }
}
