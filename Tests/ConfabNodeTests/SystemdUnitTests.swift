import ConfabTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Examples/confab-relay.service must start a working relay: its ExecStart runs through the
/// real `confab relay` (pinned to loopback with discovery off), and its hardening is there.
@Suite struct SystemdUnitTests {
    let unit: String

    init() throws {
        unit = try String(
            contentsOf: ConfabBinary.packageRoot.appendingPathComponent("Examples/confab-relay.service"),
            encoding: .utf8)
    }

    func values(_ key: String) -> [String] {
        unit.split(separator: "\n").compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(key + "=") else { return nil }
            return String(trimmed.dropFirst(key.count + 1))
        }
    }

    @Test func hardeningDirectivesAreSet() {
        let expected: [String: String] = [
            "DynamicUser": "yes", "StateDirectory": "confab-relay", "NoNewPrivileges": "yes",
            "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes", "PrivateDevices": "yes",
            "RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6", "CapabilityBoundingSet": "",
            "SystemCallFilter": "@system-service", "MemoryDenyWriteExecute": "yes", "Restart": "on-failure",
            "KillSignal": "SIGTERM",
        ]
        for (key, value) in expected {
            #expect(values(key).contains(value), "\(key)=\(value) missing")
        }
    }

    @Test func execStartRunsARelayThatStopsCleanlyOnSIGTERM() async throws {
        let execStart = try #require(values("ExecStart").first)
        var arguments = execStart.split(separator: " ").map(String.init)
        #expect(arguments.removeFirst() == "/usr/local/bin/confab")
        #expect(arguments.contains("relay"))
        let state = try ConfabBinary.temporaryDirectory("confab-unit")
        arguments = arguments.map { $0.replacingOccurrences(of: "%S", with: state.path) }
        // Later values win: loopback only, a free port, no beacons on real interfaces.
        arguments += ["--listen", "127.0.0.1:0", "--no-discovery", "--metrics", "127.0.0.1:0"]

        let process = Process()
        process.executableURL = ConfabBinary.url
        process.arguments = arguments
        let logFile = state.appendingPathComponent("journal.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        process.standardError = log
        process.standardOutput = log
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        func lines() -> [[String: String]] {
            let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: String]
            }
        }
        try await waitUntil(timeout: 30, "the relay's metrics server") {
            lines().contains { $0["event"] == "metrics_listening" }
        }
        // Every line is one JSON object (--log-format json), and the relay made its identity.
        let text = try String(contentsOf: logFile, encoding: .utf8)
        #expect(lines().count == text.split(separator: "\n").count)
        #expect(lines().contains { $0["event"] == "identity_created" })
        #expect(FileManager.default.fileExists(atPath: state.appendingPathComponent("confab-relay/identity.key").path))
        let started = try #require(lines().first { $0["event"] == "relay_started" })
        #expect(started["quota_bytes"] == "500000000")
        #expect(started["rate"] == "200.0/s")

        let message = try #require(lines().first { $0["event"] == "metrics_listening" }?["message"])
        let address = try #require(message.range(of: #"http://[0-9.:]+/metrics"#, options: .regularExpression))
        let metrics = try httpGet(try #require(URL(string: String(message[address]))))
        #expect(metrics.contains("confab_storage_quota_bytes 500000000"))

        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!process.isRunning)
        #expect(process.terminationStatus == 0)
    }
}
