import ConfabClient
import Foundation

/// The packet-filter rules of this machine (its network namespace) that may stand in the
/// way of discovery, where they can be read: `nft list ruleset`, `iptables -S` and
/// `ip6tables -S`, each if installed (reading them needs root; otherwise the doctor says it
/// could not). Which lines matter is a pure function of their output, tested on samples.
enum FirewallRules {
    /// Runs every tool found, at most `timeout` each, and keeps the rules that matter.
    static func read(port: Int, timeout: Duration = .seconds(2)) async -> DoctorFacts.Firewall {
        var firewall = DoctorFacts.Firewall()
        for (name, arguments) in [("nft", ["list", "ruleset"]), ("iptables", ["-S"]), ("ip6tables", ["-S"])] {
            guard let path = executable(name) else {
                firewall.tools.append(.init(name: name, state: "absent"))
                continue
            }
            switch await run(path, arguments, timeout: timeout) {
            case .success(let output):
                firewall.tools.append(.init(name: name, state: "read"))
                firewall.rules +=
                    name == "nft"
                    ? relevantNftRules(output, port: port) : relevantIptablesRules(output, port: port, tool: name)
            case .failure(let error):
                firewall.tools.append(.init(name: name, state: "failed", error: error.description))
            }
        }
        return firewall
    }

    // MARK: Which rules matter

    /// From `nft list ruleset`: rules naming the port, rules dropping or rejecting UDP, and
    /// input chains whose policy drops; each as `nft FAMILY TABLE CHAIN: RULE`.
    static func relevantNftRules(_ output: String, port: Int) -> [String] {
        var table = ""
        var chain = ""
        var rules: [String] = []
        for raw in output.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = stripCounters(raw.trimmingCharacters(in: .whitespaces))
            let words = line.split(separator: " ").map(String.init)
            if words.first == "table", words.count >= 3 {
                table = "\(words[1]) \(words[2])"
                chain = ""
                continue
            }
            if words.first == "chain", words.count >= 2 {
                chain = words[1]
                continue
            }
            let place = "nft \(table) \(chain)"
            if line.hasPrefix("type filter hook input"), line.contains("policy drop") {
                rules.append("\(place): policy drop (everything not accepted before is dropped)")
                continue
            }
            if line.hasPrefix("type ") || line == "}" || line.isEmpty { continue }
            if matters(words, port: port, verdicts: ["drop", "reject"], udp: ["udp", "l4proto udp"]) {
                rules.append("\(place): \(line)")
            }
        }
        return rules
    }

    /// From `iptables -S` / `ip6tables -S`: the same, as `iptables: -A INPUT …`.
    static func relevantIptablesRules(_ output: String, port: Int, tool: String) -> [String] {
        var rules: [String] = []
        for raw in output.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let words = line.split(separator: " ").map(String.init)
            if words.count >= 3, words[0] == "-P", words[1] == "INPUT", words[2] == "DROP" {
                rules.append("\(tool): -P INPUT DROP (everything not accepted before is dropped)")
                continue
            }
            guard words.first == "-A" else { continue }
            if matters(words, port: port, verdicts: ["DROP", "REJECT"], udp: ["udp"]) {
                rules.append("\(tool): \(line)")
            }
        }
        return rules
    }

    /// Names the port (in any form: `7460`, `7460-7470` containing it, `{ 53, 7460 }`), or
    /// drops or rejects UDP whatever its port.
    private static func matters(_ words: [String], port: Int, verdicts: Set<String>, udp: Set<String>) -> Bool {
        let tokens = words.flatMap { $0.split(whereSeparator: { ",{}".contains($0) }).map(String.init) }
        // iptables writes a range 7000:8000, nft 7000-8000.
        if tokens.contains(where: { mentions($0.replacingOccurrences(of: ":", with: "-"), port: port) }) { return true }
        // A rule dropping UDP to or from other ports only is not in the way.
        let namesPorts = tokens.contains {
            ["dport", "sport", "--dport", "--sport", "--dports", "--sports"].contains($0)
        }
        let drops = tokens.contains { verdicts.contains($0) }
        return tokens.contains("udp") && drops && !namesPorts
    }

    private static func mentions(_ token: String, port: Int) -> Bool {
        if Int(token) == port { return true }
        let parts = token.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = Int(parts[0]), let high = Int(parts[1]), low <= high else { return false }
        return (low...high).contains(port)
    }

    /// `counter packets 3 bytes 180` changes with every packet: not part of the rule.
    private static func stripCounters(_ line: String) -> String {
        var words = line.split(separator: " ").map(String.init)
        if let index = words.firstIndex(of: "counter"), index + 5 <= words.count, words[index + 1] == "packets",
            words[index + 3] == "bytes"
        {
            words.removeSubrange(index..<index + 5)
        }
        if let index = words.firstIndex(of: "#"), words[safe: index + 1] == "handle" {
            words.removeSubrange(index..<words.count)
        }
        return words.joined(separator: " ")
    }

    // MARK: Running the tools

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Its standard output, or why not: the exit status and the first line it wrote on
    /// standard error (`Operation not permitted`).
    private static func run(_ path: String, _ arguments: [String], timeout: Duration) async -> Result<String, Failure> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .failure(Failure(description: "\(error)"))
        }
        // Read both pipes while it runs (a full pipe would stop it), and stop it if it hangs.
        async let out = Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
        async let err = Task.detached { errors.fileHandleForReading.readDataToEndOfFile() }.value
        let watchdog = Task.detached {
            try await Task.sleep(for: timeout)
            if process.isRunning { process.terminate() }
        }
        let (data, errorData) = await (out, err)
        process.waitUntilExit()
        watchdog.cancel()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let message =
                String(decoding: errorData, as: UTF8.self)
                .split(separator: "\n").first.map(String.init) ?? "exit status \(process.terminationStatus)"
            return .failure(Failure(description: message))
        }
        return .success(String(decoding: data, as: UTF8.self))
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
