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

    // MARK: Working

    @Test func aPeerHeardIsHealthyAndExitsZero() throws {
        let diagnosis = Diagnosis(Self.facts(heard: .init(nodes: [Self.node(Self.bob, "bob", at: "10.0.0.2:7461")])))
        #expect(diagnosis.ok)
        #expect(
            diagnosis.finding("peers-heard")?.message
                == "Heard 1 node of this network: bob (b0b0b0b0) at 10.0.0.2:7461.")
        #expect(diagnosis.finding("echo-ok")?.severity == .ok)
        #expect(diagnosis.finding("nothing-heard") == nil)
        #expect(!diagnosis.findings.contains { $0.severity == .problem })
    }

    @Test func aPeerThatAnswersTheProbeIsEnoughForExitZero() throws {
        let diagnosis = Diagnosis(Self.facts(peers: [Self.peer(Self.bob, "bob", .ok)]))
        #expect(diagnosis.ok)
        #expect(diagnosis.finding("peer-reachable") != nil)
        // Nothing heard is still said, but as a warning: the peer works without beacons.
        let nothing = diagnosis.finding("nothing-heard")
        #expect(nothing?.severity == .warning)
        #expect(
            nothing?.advice.last == "Without beacons, dial known peers directly: run confab up --peer 10.0.0.2:7461")
    }

    @Test func aConnectedPeerIsNotProbedAndSilenceIsExpected() throws {
        let diagnosis = Diagnosis(Self.facts(running: true, peers: [Self.peer(Self.bob, "bob", .connected)]))
        #expect(diagnosis.ok)
        #expect(diagnosis.finding("node-running") != nil)
        #expect(
            diagnosis.finding("peer-connected")?.message
                == "bob (b0b0b0b0) at 10.0.0.2:7461: connected to the running node.")
        #expect(diagnosis.finding("nothing-heard")?.severity == .info)
    }

    // MARK: Nothing works

    @Test func nothingHeardAndNoPeerIsAProblemWithCausesAndTheFallback() throws {
        let diagnosis = Diagnosis(Self.facts(peers: [Self.peer(Self.bob, "bob", .timedOut)]))
        #expect(!diagnosis.ok)
        let nothing = try #require(diagnosis.finding("nothing-heard"))
        #expect(nothing.severity == .problem)
        #expect(nothing.message == "No beacon from any node of this network in 3 s.")
        #expect(nothing.advice.contains { $0.hasPrefix("Client isolation on Wi-Fi") })
        #expect(nothing.advice.contains { $0.hasPrefix("A firewall on the peer's machine dropping UDP 7460") })
        #expect(nothing.advice.last == "Without beacons, dial known peers directly: run confab up --peer 10.0.0.2:7461")
        #expect(diagnosis.finding("peer-timed-out") != nil)
    }

    @Test func withNoKnownAddressTheFallbackNamesThePlaceholder() throws {
        let diagnosis = Diagnosis(Self.facts())
        #expect(diagnosis.finding("no-known-peers") != nil)
        #expect(
            diagnosis.finding("nothing-heard")?.advice.last
                == "Without beacons, name the peer: run confab up --peer HOST:7461 (HOST the peer's address; \"confab status\" on the peer shows its port)."
        )
    }

    @Test func withARunningNodeTheFallbackSaysRestart() throws {
        let diagnosis = Diagnosis(Self.facts(running: true, peers: [Self.peer(Self.bob, "bob", .refused)]))
        #expect(
            diagnosis.finding("nothing-heard")?.advice.last
                == "Without beacons, dial known peers directly: restart the node with confab up --peer 10.0.0.2:7461")
    }

    @Test func unreadableFirewallRulesAreSaidToBeUnreadable() throws {
        let diagnosis = Diagnosis(
            Self.facts(firewall: .init(tools: [.init(name: "nft", state: "failed", error: "Operation not permitted")])))
        #expect(
            diagnosis.finding("nothing-heard")?.advice.contains { $0.contains("the rules here could not be read") }
                == true)
    }

    // MARK: Another network

    @Test func nodesOfAnotherNetworkAreCountedAndNamed() throws {
        let heard = DoctorFacts.Heard(otherNetworks: [
            Self.node(Self.bob, "bob", at: "10.0.0.2:7461", tag: "0011223344556677"),
            Self.node(Self.carol, nil, at: "10.0.0.3:7461", tag: "0011223344556677"),
        ])
        let diagnosis = Diagnosis(Self.facts(heard: heard))
        let other = try #require(diagnosis.finding("other-network"))
        #expect(
            other.message
                == "2 nodes on this LAN use another network key — run \"confab network show\" on both: bob (b0b0b0b0) at 10.0.0.2:7461, c0c0c0c0 at 10.0.0.3:7461."
        )
        #expect(other.advice.first?.contains("theirs is 0011223344556677") == true)
        // With nothing of this network heard, it is the problem, and the first cause listed.
        #expect(other.severity == .problem)
        #expect(diagnosis.finding("nothing-heard")?.advice.first?.contains("another network key") == true)
        #expect(!diagnosis.ok)
    }

    @Test func oneNodeOfAnotherNetworkBesideAWorkingPeerIsAWarning() throws {
        let heard = DoctorFacts.Heard(
            nodes: [Self.node(Self.carol, "carol", at: "10.0.0.3:7461")],
            otherNetworks: [Self.node(Self.bob, "bob", at: "10.0.0.2:7461", tag: "0011223344556677")])
        let other = Diagnosis(Self.facts(heard: heard)).finding("other-network")
        #expect(other?.severity == .warning)
        #expect(
            other?.message.hasPrefix(
                "1 node on this LAN uses another network key — run \"confab network show\" on both") == true)
    }

    @Test func aPeerWhoseHandshakeFailsForItsNetworkSaysSo() throws {
        let diagnosis = Diagnosis(
            Self.facts(peers: [Self.peer(Self.bob, "bob", .handshakeFailed, failure: .otherNetwork)]))
        #expect(
            diagnosis.finding("peer-other-network")?.message
                == "bob (b0b0b0b0) at 10.0.0.2:7461: the handshake was refused — the node there uses another network key."
        )
        let otherKey = Diagnosis(Self.facts(peers: [Self.peer(Self.bob, "bob", .handshakeFailed, failure: .otherKey)]))
        #expect(otherKey.finding("peer-other-key") != nil)
    }

    // MARK: The firewall

    @Test func aFirewallRuleIsNamedAsTheFirstCause() throws {
        let rule = "nft inet filter input: udp dport 7460 drop"
        let diagnosis = Diagnosis(
            Self.facts(
                echoes: [.init(target: "10.0.0.255:7460", sent: true, received: false)],
                firewall: .init(tools: [.init(name: "nft", state: "read")], rules: [rule])))
        let firewall = try #require(diagnosis.finding("firewall"))
        #expect(firewall.severity == .problem)
        #expect(firewall.message.contains(rule))
        let causes = try #require(diagnosis.finding("nothing-heard")).advice
        #expect(causes.first == "A firewall rule here drops UDP 7460: \(rule).")
        #expect(causes.contains { $0.hasPrefix("Not even our own beacon came back") })
        #expect(diagnosis.finding("no-echo")?.message.contains("10.0.0.255:7460") == true)
    }

    // MARK: Interfaces and ports

    @Test func noUsableInterfaceIsAProblemNamingWhy() throws {
        let onlyLoopback = Diagnosis(
            Self.facts(
                targets: [], interfaces: [.init(name: "lo", up: true, loopback: true, addresses: ["127.0.0.1/8"])],
                echoes: []))
        let finding = try #require(onlyLoopback.finding("no-interface"))
        #expect(finding.severity == .problem)
        #expect(finding.message == "No interface to send beacons on: no interface but loopback is up.")
        #expect(finding.advice.contains("Or name a peer to dial: confab up --peer HOST:PORT"))
        // Nothing was sent: the only cause is that, and the fallback.
        #expect(onlyLoopback.finding("nothing-heard")?.advice.count == 2)
        #expect(onlyLoopback.finding("nothing-heard")?.advice.first?.hasPrefix("No interface sends beacons") == true)

        let skipped = Diagnosis(Self.facts(targets: [], skipped: ["wg0: point-to-point link: nothing to broadcast to"]))
        #expect(
            skipped.finding("no-interface")?.message
                == "No interface to send beacons on: wg0: point-to-point link: nothing to broadcast to.")
    }

    @Test func skippedInterfacesBesideUsableOnesAreOnlyMentioned() throws {
        let diagnosis = Diagnosis(Self.facts(skipped: ["tun0: point-to-point link: nothing to broadcast to"]))
        #expect(diagnosis.finding("skipped-interfaces")?.severity == .info)
        #expect(diagnosis.finding("no-interface") == nil)
    }

    @Test func fixedTargetsAreNeverANoInterfaceProblem() throws {
        var facts = Self.facts(targets: [])
        facts.beacons.mode = "fixed"
        #expect(Diagnosis(facts).finding("no-interface") == nil)
    }

    @Test func aDiscoveryPortHeldByAnotherProgramNamesItAndHowToFindIt() throws {
        let diagnosis = Diagnosis(
            Self.facts(ports: [
                .init(
                    proto: "udp", address: "0.0.0.0:7460", port: 7460, state: .inUse, error: "Address already in use"),
                .init(proto: "udp", address: "[::]:7460", port: 7460, state: .inUse, error: "Address already in use"),
                .init(proto: "tcp", address: "[::]:7461", port: 7461, state: .free),
            ]))
        let finding = try #require(diagnosis.finding("udp-port-in-use"))
        #expect(finding.severity == .problem)
        #expect(
            finding.message
                == "UDP port 7460 (discovery) cannot be bound on 0.0.0.0:7460 and [::]:7460: Address already in use — another program holds it without sharing it."
        )
        #expect(finding.advice.first == "See which program holds it: ss -lunp 'sport = :7460'")
        #expect(finding.advice.last?.contains("--discovery-port N") == true)
        #expect(diagnosis.finding("tcp-port-in-use") == nil)
    }

    @Test func aSessionPortHeldByAnotherProgramSuggestsListenElsewhere() throws {
        let diagnosis = Diagnosis(
            Self.facts(ports: [
                .init(proto: "tcp", address: "[::]:7461", port: 7461, state: .inUse, error: "Address already in use")
            ]))
        let finding = try #require(diagnosis.finding("tcp-port-in-use"))
        #expect(
            finding.advice == [
                "See which program holds it: ss -ltnp 'sport = :7461'",
                "Or accept sessions on another port: confab up --listen [::]:7462",
            ])
    }

    @Test func theRunningNodesOwnPortsAreNoProblem() throws {
        let diagnosis = Diagnosis(Self.facts(running: true))
        #expect(diagnosis.finding("udp-port-in-use") == nil)
        #expect(diagnosis.finding("tcp-port-in-use") == nil)
        #expect(
            diagnosis.finding("node-running")?.message.contains("the discovery and session ports are its own") == true)
    }

    @Test func noIPv6IsNotAPortProblem() throws {
        let diagnosis = Diagnosis(
            Self.facts(ports: [
                .init(proto: "udp", address: "0.0.0.0:7460", port: 7460, state: .free),
                .init(
                    proto: "udp", address: "[::]:7460", port: 7460, state: .unsupported,
                    error: "Address family not supported"),
            ]))
        #expect(
            !diagnosis.findings.contains { $0.code.hasSuffix("-port-in-use") || $0.code.hasSuffix("-port-unavailable") }
        )
    }

    // MARK: Odd datagrams, lost echoes

    @Test func badSignaturesAndStrayDatagramsAreCounted() throws {
        let diagnosis = Diagnosis(Self.facts(heard: .init(badSignature: 3, malformed: 1)))
        #expect(
            diagnosis.finding("bad-datagrams")?.message
                == "On UDP 7460, 3 datagrams had a bad signature and 1 datagram was not a beacon: another program uses this port, or something on the LAN sends broken or forged beacons."
        )
    }

    @Test func aBeaconThatCouldNotBeSentIsNamed() throws {
        let diagnosis = Diagnosis(
            Self.facts(echoes: [
                .init(target: "10.0.0.255:7460", sent: false, received: false, error: "Network is unreachable")
            ]))
        #expect(
            diagnosis.finding("beacon-not-sent")?.message
                == "Could not send a beacon to 10.0.0.255:7460 (Network is unreachable).")
        #expect(diagnosis.finding("echo-ok") == nil)
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
        let decoded = try JSONOutput.decoder().decode(DoctorReport.self, from: Data(line.utf8))
        #expect(decoded.facts == facts)
        #expect(decoded.findings == report.findings)
    }
}
