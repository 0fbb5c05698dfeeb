import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import Foundation

extension Confab {
    struct Doctor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check what stands between this node and its peers, and say what to do.",
            discussion: """
                Shows the interfaces, beacon targets and ports in use (the running node's, or \
                those "confab up" would use with the same options), listens for beacons for a \
                few seconds after sending one of its own, probes known peers with a TCP connect \
                and a handshake (under a throwaway key), reads the firewall rules where it can, \
                and says what is wrong and what to try. Exit status: 0 when at least one peer \
                was heard, is connected or answered the probe; 1 when nothing works.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var network: NetworkOptions
        @OptionGroup var output: OutputOptions

        @Option(help: "How long to listen for beacons, in seconds.")
        var seconds = 3.0

        func validate() throws {
            guard seconds > 0, seconds <= 120 else {
                throw ValidationError("--seconds must be more than 0 and at most 120")
            }
        }

        func run() async throws {
            let local = try global.open()
            let listen = try network.listenAddress()
            var options = DoctorOptions(
                network: try NetworkKeySetting.resolve(flag: network.networkKey, directory: global.directory))
            options.listenHost = listen.host
            options.listenPort = listen.port
            options.discoveryPort = network.discoveryPort
            options.beaconTargets = network.beacons
            options.staticPeers = network.peers
            options.seconds = seconds
            let report = try await ConfabNode.Doctor.run(profile: local, options: options)
            if output.json {
                try JSONOutput.print(report)
            } else {
                for line in DoctorText.lines(report) { Console.out(line) }
            }
            if !report.ok { throw ExitCode(1) }
        }
    }
}

/// `confab doctor` in words: the facts in a few lines, then each finding with its advice.
/// Everything that came from the network (names, addresses) is sanitised.
enum DoctorText {
    static func lines(_ report: DoctorReport, now: Date = Date()) -> [String] {
        let facts = report.facts
        var lines: [String] = []
        func row(_ title: String, _ values: [String]) {
            let pad = String(repeating: " ", count: 12)
            for (index, value) in (values.isEmpty ? ["—"] : values).enumerated() {
                let head = index == 0 ? Style.bold(title.padding(toLength: 12, withPad: " ", startingAt: 0)) : pad
                lines.append(head + TextSanitizer.line(value))
            }
        }
        let network = facts.network.isDefault ? "Confab's default network" : "a private network"
        lines.append(
            "Checked in \(String(format: "%.1f", report.elapsed)) s · \(network), tag \(facts.network.tag) (key from \(facts.network.source))"
        )
        let node = facts.node
        row(
            "Node",
            [
                node.running
                    ? "running — \(node.name ?? String(node.id.prefix(8))) (\(node.id.prefix(8))), \(node.sessions) session\(node.sessions == 1 ? "" : "s")"
                    : "not running — checked as \"confab up\" would run with these options"
            ])
        row(
            "Interfaces",
            facts.interfaces.map { interface in
                let state = interface.up ? (interface.loopback ? "up, loopback" : "up") : "down"
                let addresses = interface.addresses.isEmpty ? "no address" : interface.addresses.joined(separator: ", ")
                return "\(interface.name) (\(state)): \(addresses)"
            })
        row(
            "Beacons",
            facts.beacons.targets.map { target in
                "UDP \(facts.beacons.port) → \(target.address)\(target.interface.map { " on \($0)" } ?? "") (\(target.kind))"
            })
        if !facts.beacons.skipped.isEmpty { row("No beacons", facts.beacons.skipped) }
        row("Sessions on", facts.listen.map { "TCP \($0)" })
        row(
            "Ports",
            facts.ports.map { port in
                let state: String
                switch port.state {
                case .free: state = "free"
                case .node: state = "the running node's"
                case .inUse: state = "IN USE by another program"
                case .denied: state = "not permitted"
                case .unsupported: state = "unsupported here (\(port.error ?? "no such family"))"
                case .failed: state = "cannot bind (\(port.error ?? "?"))"
                }
                return "\(port.proto.uppercased()) \(port.address): \(state)"
            })
        let heard = facts.heard
        var heardLines = heard.nodes.map { node in
            "\(label(node.name, node.id)) at \(node.address)\(node.role == "relay" ? " (relay)" : "")"
        }
        heardLines += heard.otherNetworks.map { node in
            "\(label(node.name, node.id)) at \(node.address): another network (tag \(node.tag ?? "?"))"
        }
        if heard.badSignature > 0 { heardLines.append("\(heard.badSignature) with a bad signature") }
        if heard.malformed > 0 { heardLines.append("\(heard.malformed) not a beacon") }
        row("Heard", heardLines.isEmpty ? ["nothing in \(String(format: "%g", facts.seconds)) s"] : heardLines)
        if !facts.echoes.isEmpty {
            row(
                "Own beacon",
                facts.echoes.map { echo in
                    let outcome =
                        !echo.sent
                        ? "not sent (\(echo.error ?? "?"))" : echo.received ? "came back" : "did not come back"
                    return "\(echo.target): \(outcome)"
                })
        }
        row(
            "Peers",
            facts.peers.map { peer in
                let seen = peer.lastSeen.map { ", seen " + HumanOutput.timestamps.short($0, now: now) } ?? ""
                let result: String
                switch peer.result {
                case .connected: result = "connected"
                case .ok: result = "reachable\(peer.milliseconds.map { " (\($0) ms)" } ?? "")"
                case .refused: result = "connection refused"
                case .timedOut: result = "no answer"
                case .unreachable: result = "unreachable\(peer.detail.map { " (\($0))" } ?? "")"
                case .blocked: result = "blocked, not probed"
                case .handshakeFailed:
                    switch peer.failure {
                    case .otherNetwork: result = "handshake refused: another network key"
                    case .otherKey: result = "handshake failed: another key, or refused"
                    case .noAnswer, nil: result = "handshake failed\(peer.detail.map { " (\($0))" } ?? "")"
                    }
                }
                return "\(label(peer.name, peer.id)) \(peer.address ?? "")\(seen): \(result)"
            })
        row(
            "Firewall",
            facts.firewall.tools.map { tool in
                switch tool.state {
                case "read": "\(tool.name): read"
                case "absent": "\(tool.name): not installed"
                default: "\(tool.name): could not read (\(tool.error ?? "?"))"
                }
            } + facts.firewall.rules)
        lines.append("")
        for finding in report.findings {
            let mark: String
            switch finding.severity {
            case .ok: mark = "✓"
            case .info: mark = "·"
            case .warning: mark = "!"
            case .problem: mark = "✗"
            }
            lines.append("\(mark) \(TextSanitizer.line(finding.message))")
            for advice in finding.advice { lines.append("    → \(TextSanitizer.line(advice))") }
        }
        lines.append("")
        lines.append(
            report.ok
                ? Style.bold("Result: a peer can be reached (exit 0).")
                : Style.bold("Result: no peer can be reached (exit 1) — see above."))
        return lines
    }

    private static func label(_ name: String?, _ id: String) -> String {
        let short = String(id.prefix(8))
        guard let name, !name.isEmpty, name != short else { return short }
        return "\(name) (\(short))"
    }
}
