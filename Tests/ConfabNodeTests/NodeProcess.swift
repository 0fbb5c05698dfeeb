import ConfabTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real `confab` node process on loopback, and the CLI pointed at its data directory.
/// It listens on a TCP port the OS picks (read back from its log); beacons go to
/// 127.255.255.255 only (never a real interface), on a port the test holds, or discovery is
/// off.
final class NodeProcess: @unchecked Sendable {
    let name: String
    let data: URL
    /// Held as long as any node of the test lives, so that a node restarted finds it free.
    let discovery: DiscoveryPort?
    var discoveryPort: Int { discovery?.number ?? 0 }
    private(set) var process: Process?
    private(set) var key = ""
    let logFile: URL
    /// The TCP port the node listens on (the last run's, once stopped): the OS picks it
    /// unless `start` is given one, and the node logs it.
    private(set) var port = 0

    static var binary: URL { ConfabBinary.url }

    /// `displayName` is what the node calls itself to others (default: `name`, which also
    /// names its data directory and log). `discovery` is only used by `start` with
    /// discovery on.
    init(name: String, root: URL, discovery: DiscoveryPort? = nil, displayName: String? = nil) throws {
        self.name = name
        data = root.appendingPathComponent(name)
        self.discovery = discovery
        logFile = root.appendingPathComponent("\(name).log")
        key = try ConfabBinary.initialize(data: data, name: displayName ?? name)
    }

    /// A node whose data directory `confab init --link` makes (Protocol.md §20.10): nothing
    /// is initialized here, and its key is read once the directory exists (`start` does).
    init(linking name: String, root: URL) {
        self.name = name
        data = root.appendingPathComponent(name)
        discovery = nil
        logFile = root.appendingPathComponent("\(name).log")
    }

    /// Nodes (not started yet) that know one another by name, as after `confab peers add`
    /// on every side.
    static func acquainted(_ names: [String], root: URL, discovery: DiscoveryPort? = nil) throws -> [NodeProcess] {
        let nodes = try names.map { try NodeProcess(name: $0, root: root, discovery: discovery) }
        for node in nodes {
            for other in nodes where other !== node {
                try node.cli(["peers", "add", other.key, "--name", other.name])
            }
        }
        return nodes
    }

    /// Where the running node accepts sessions.
    var address: String { "127.0.0.1:\(port)" }

    /// `--peer KEY@127.0.0.1:PORT`'s value, to dial this node by key and address.
    var peerAddress: String { "\(key)@\(address)" }

    /// Starts `confab up` (or `command`, e.g. `relay`) on 127.0.0.1 with discovery pinned to
    /// loopback (or off, with static peers), and returns once it listens and answers on its
    /// control socket. `listenPort` 0 lets the OS pick; give `port` again to restart a node
    /// where its peers remember it (a port given back to the OS: should another program
    /// take it meanwhile, the node cannot listen and this fails with its log).
    func start(
        command: String = "up", listenPort: Int = 0, discovery: Bool = true, logLevel: String = "debug",
        extra: [String] = [], environment: [String: String] = [:]
    ) throws {
        if discovery, self.discovery == nil {
            throw Failure("\(name): discovery needs a discovery port (DiscoveryPort())")
        }
        if key.isEmpty {
            let whoami = try cli(["whoami", "--json"])
            key = (try? whoami.json() as? [String: Any])?["id"] as? String ?? ""
            guard !key.isEmpty else { throw Failure("\(name) has no identity yet:\n\(whoami.stderr)") }
        }
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
            ["--data", data.path, command, "--listen", "127.0.0.1:\(listenPort)", "--log-level", logLevel] + network
            + extra
        if !FileManager.default.fileExists(atPath: logFile.path) {
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        }
        let mark = logMark()
        let log = try FileHandle(forWritingTo: logFile)
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        // The node logs its address once it listens, and opens its control socket after.
        let socket = data.appendingPathComponent("control.sock").path
        var listening: Int?
        try waitUntil(timeout: 30, "\(name) to listen and open its control socket", every: 0.02) {
            guard process.isRunning else {
                throw Failure("\(name) exited with status \(process.terminationStatus):\n\(self.log(after: mark))")
            }
            listening = listening ?? Self.listeningPort(in: self.log(after: mark))
            return listening != nil && FileManager.default.fileExists(atPath: socket)
        }
        port = listening!
    }

    /// The port in `node XXXX (NAME) listening on 127.0.0.1:PORT`.
    private static func listeningPort(in log: String) -> Int? {
        guard
            let line = log.split(separator: "\n").first(where: {
                $0.contains("[ConfabNode] node ") && $0.contains(") listening on 127.0.0.1:")
            }),
            let port = line.split(separator: ":").last.flatMap({ Int($0) })
        else { return nil }
        return port
    }

    /// SIGTERM, as systemd or Ctrl-C would, and wait for a clean exit.
    func stop() throws {
        guard let process else { return }
        kill(process.processIdentifier, SIGTERM)
        if !process.waitForExit(within: 20) {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failure("\(name) did not stop on SIGTERM")
        }
        self.process = nil
    }

    /// SIGKILL: the process gets no chance to finish anything (a crash, a power cut).
    func killHard() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
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

    // MARK: The log

    /// Everything every run of this node logged.
    var log: String { log(after: 0) }

    /// Where the log ends now: what `log(after:)` and `waitForLog` count from.
    func logMark() -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: logFile.path)[.size]) as? Int) ?? 0
    }

    /// What the node logged after `mark`.
    func log(after mark: Int) -> String {
        guard let data = try? Data(contentsOf: logFile), data.count > mark else { return "" }
        return String(decoding: data.dropFirst(mark), as: UTF8.self)
    }

    /// How many lines logged after `mark` contain every one of `texts`.
    func logLines(_ texts: String..., after mark: Int = 0) -> Int {
        log(after: mark).split(separator: "\n").count { line in texts.allSatisfy { line.contains($0) } }
    }

    /// Waits until at least `count` lines logged after `mark` contain every one of `texts`.
    func waitForLog(
        _ texts: String..., count: Int = 1, after mark: Int = 0, timeout: TimeInterval = 30
    ) async throws {
        let what = "\(count) line(s) with \(texts.map { "\"\($0)\"" }.joined(separator: " and ")) in \(name)'s log"
        do {
            try await waitUntil(timeout: timeout, what, every: 0.05) {
                log(after: mark).split(separator: "\n").count { line in texts.allSatisfy { line.contains($0) } }
                    >= count
            }
        } catch {
            throw Failure("\(error); it logged:\n\(log(after: mark).suffix(4000))")
        }
    }

    typealias Failure = ConfabBinary.Failure
}

/// Polls until `condition` holds; fails the test with `what` on timeout. A poll of a
/// condition, with a ceiling far above what it needs: never a fixed wait.
func waitUntil(
    timeout: TimeInterval, _ what: String, every interval: TimeInterval = 0.1, _ condition: () throws -> Bool
) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return }
        usleep(UInt32(interval * 1_000_000))
    }
    if try condition() { return }
    throw NodeProcess.Failure("timed out after \(Int(timeout)) s waiting for \(what)")
}

/// The same, sleeping without holding one of the few threads async tests run on.
func waitUntil(
    timeout: TimeInterval, _ what: String, every interval: TimeInterval = 0.1, _ condition: () throws -> Bool
) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return }
        try await Task.sleep(for: .seconds(interval))
    }
    if try condition() { return }
    throw NodeProcess.Failure("timed out after \(Int(timeout)) s waiting for \(what)")
}

func temporaryRoot() throws -> URL { try ConfabBinary.temporaryDirectory("confab-nodes") }
