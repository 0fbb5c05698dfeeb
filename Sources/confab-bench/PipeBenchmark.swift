import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

/// `seq N | confab send bob --lines` as a script runs it: two `confab up` processes on
/// loopback, the sender's pipe into a third process, timed from the first line written to
/// the last message stored on the recipient.
enum PipeBenchmark {
    struct Result {
        let lines: Int
        /// First line written until `send` exited (every line durable on the sender).
        let sendSeconds: Double
        /// First line written until the recipient's store held the last line.
        let deliverSeconds: Double
    }

    static func run(confab: URL, lines: Int) throws -> Result {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("confab-pipe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let alice = root.appendingPathComponent("alice")
        let bob = root.appendingPathComponent("bob")
        _ = try command(confab, data: alice, ["init", "--name", "alice"])
        _ = try command(confab, data: bob, ["init", "--name", "bob"])
        let aliceKey = try key(confab, data: alice)
        let bobKey = try key(confab, data: bob)
        _ = try command(confab, data: alice, ["peers", "add", bobKey, "--name", "bob"])
        _ = try command(confab, data: bob, ["peers", "add", aliceKey, "--name", "alice"])

        let bobNode = try node(confab, data: bob, ["--listen", "127.0.0.1:0"])
        defer { stop(bobNode.process) }
        let aliceNode = try node(
            confab, data: alice, ["--listen", "127.0.0.1:0", "--peer", "\(bobKey)@127.0.0.1:\(bobNode.port)"])
        defer { stop(aliceNode.process) }
        try waitUntil("alice's session with bob") {
            try command(confab, data: alice, ["status", "--json"]).contains(bobKey)
        }

        let send = Process()
        send.executableURL = confab
        send.arguments = ["--data", alice.path, "send", "bob", "--lines"]
        let input = Pipe()
        send.standardInput = input
        send.standardOutput = FileHandle.nullDevice
        let text = (1...lines).map { "line \($0) of the benchmark pipe, about as long as a log line\n" }.joined()
        let start = DispatchTime.now().uptimeNanoseconds
        try send.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        send.waitUntilExit()
        let sent = DispatchTime.now().uptimeNanoseconds
        guard send.terminationStatus == 0 else { throw BenchFailure("send exited \(send.terminationStatus)") }
        // The recipient's own store, read beside its node (WAL allows readers).
        let store = try Profile.open(DataDirectory(url: bob)).store
        let author = NodeID(hex: aliceKey)!
        try waitUntil("bob to hold every line", timeout: 600) {
            try store.allClocks().values.reduce(0) { $0 + Int($1[author]) } >= lines + 1
        }
        let delivered = DispatchTime.now().uptimeNanoseconds
        return Result(
            lines: lines, sendSeconds: Double(sent - start) / 1e9, deliverSeconds: Double(delivered - start) / 1e9)
    }

    private static func command(_ confab: URL, data: URL, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = confab
        process.arguments = ["--data", data.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchFailure("confab \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func key(_ confab: URL, data: URL) throws -> String {
        let json = try command(confab, data: data, ["whoami", "--json"])
        guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let id = object["id"] as? String
        else { throw BenchFailure("whoami printed no id") }
        return id
    }

    /// `confab up` with discovery off; returns once its log names the port it listens on.
    private static func node(_ confab: URL, data: URL, _ arguments: [String]) throws -> (process: Process, port: Int) {
        let process = Process()
        process.executableURL = confab
        let log = data.appendingPathComponent("bench.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        process.arguments = ["--data", data.path, "up", "--no-discovery"] + arguments
        try process.run()
        var port = 0
        try waitUntil("confab up to listen") {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            guard let range = text.range(of: "listening on 127.0.0.1:") else { return false }
            port = Int(text[range.upperBound...].prefix { $0.isNumber }) ?? 0
            return port > 0
        }
        return (process, port)
    }

    private static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.interrupt()
        process.waitUntilExit()
    }

    private static func waitUntil(_ what: String, timeout: Double = 30, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(5_000)
        }
        throw BenchFailure("timed out waiting for \(what)")
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
