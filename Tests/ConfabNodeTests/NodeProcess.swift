import ConfabTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real `confab` node process on loopback, and the CLI pointed at its data directory.
/// Beacons go to 127.255.255.255 only (never a real interface).
final class NodeProcess: @unchecked Sendable {
    let name: String
    let data: URL
    let discoveryPort: Int
    private(set) var process: Process?
    private(set) var key = ""
    let logFile: URL

    static var binary: URL { ConfabBinary.url }

    /// `displayName` is what the node calls itself to others (default: `name`, which also
    /// names its data directory and log).
    init(name: String, root: URL, discoveryPort: Int, displayName: String? = nil) throws {
        self.name = name
        data = root.appendingPathComponent(name)
        self.discoveryPort = discoveryPort
        logFile = root.appendingPathComponent("\(name).log")
        key = try ConfabBinary.initialize(data: data, name: displayName ?? name)
    }

    /// Nodes (not started yet) that know one another by name, as after `confab peers add`
    /// on every side.
    static func acquainted(_ names: [String], root: URL, discoveryPort: Int) throws -> [NodeProcess] {
        let nodes = try names.map { try NodeProcess(name: $0, root: root, discoveryPort: discoveryPort) }
        for node in nodes {
            for other in nodes where other !== node {
                try node.cli(["peers", "add", other.key, "--name", other.name])
            }
        }
        return nodes
    }

    /// Starts `confab up` (or `command`, e.g. `relay`) with discovery pinned to loopback (or
    /// off, with static peers).
    func start(
        command: String = "up", listenPort: Int = 0, discovery: Bool = true, extra: [String] = [],
        environment: [String: String] = [:]
    ) throws {
        let process = Process()
        process.executableURL = Self.binary
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let network =
            discovery
            ? ["--discovery-port", "\(discoveryPort)", "--beacon", "127.255.255.255:\(discoveryPort)"]
            : ["--no-discovery"]
        process.arguments =
            ["--data", data.path, command, "--listen", "127.0.0.1:\(listenPort)", "--log-level", "debug"] + network
            + extra
        if !FileManager.default.fileExists(atPath: logFile.path) {
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        }
        let log = try FileHandle(forWritingTo: logFile)
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        try waitUntil(timeout: 10, "\(name)'s control socket") {
            FileManager.default.fileExists(atPath: self.data.appendingPathComponent("control.sock").path)
        }
    }

    /// SIGTERM, as systemd or Ctrl-C would, and wait for a clean exit.
    func stop() throws {
        guard let process else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failure("\(name) did not stop on SIGTERM")
        }
        self.process = nil
    }

    deinit {
        if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    typealias Result = ConfabBinary.Result

    @discardableResult
    func cli(_ arguments: [String], stdin: String? = nil) throws -> Result {
        try ConfabBinary.run(data: data, arguments, stdin: stdin)
    }

    func texts(with peer: String) throws -> [String] {
        let result = try cli(["history", peer, "--json", "--no-mark-read"])
        guard result.status == 0, let messages = try result.json() as? [[String: Any]] else { return [] }
        return messages.compactMap { $0["text"] as? String }
    }

    func onlinePeers() throws -> Set<String> {
        let result = try cli(["peers", "--json"])
        guard result.status == 0, let peers = try? result.json() as? [[String: Any]] else { return [] }
        return Set(peers.filter { $0["connected"] as? Bool == true }.compactMap { $0["name"] as? String })
    }

    /// Keys of the peers this node holds a session with now.
    func sessionKeys() throws -> Set<String> {
        let result = try cli(["status", "--json"])
        guard result.status == 0, let status = try? result.json() as? [String: Any],
            let sessions = status["sessions"] as? [[String: Any]]
        else { return [] }
        return Set(sessions.compactMap { $0["peer"] as? String })
    }

    /// Every peer `peers --json` lists (known or heard), by key.
    func listedPeers() throws -> [String: [String: Any]] {
        let result = try cli(["peers", "--json"])
        guard result.status == 0, let peers = try? result.json() as? [[String: Any]] else { return [:] }
        return Dictionary(peers.compactMap { peer in (peer["id"] as? String).map { ($0, peer) } }) { a, _ in a }
    }

    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    typealias Failure = ConfabBinary.Failure
}

/// Polls until `condition` holds; fails the test with `what` on timeout.
func waitUntil(timeout: TimeInterval, _ what: String, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return }
        usleep(100_000)
    }
    throw NodeProcess.Failure("timed out after \(Int(timeout)) s waiting for \(what)")
}

/// The same, sleeping without holding one of the few threads async tests run on.
func waitUntil(timeout: TimeInterval, _ what: String, _ condition: () throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw NodeProcess.Failure("timed out after \(Int(timeout)) s waiting for \(what)")
}

func temporaryRoot() throws -> URL { try ConfabBinary.temporaryDirectory("confab-nodes") }

/// A UDP port for one test's discovery, away from the default and from other tests.
func randomDiscoveryPort() -> Int { Int.random(in: 30_000...59_000) }
