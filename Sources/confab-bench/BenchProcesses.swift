import Foundation

/// Real `confab` processes for the benchmarks that run nodes as people do: commands, and
/// `confab up` on loopback with discovery off.
enum BenchProcesses {
    /// Two initialised data directories under `root` that know each other by name.
    static func acquaintedPair(
        _ confab: URL, root: URL
    ) throws -> (alice: URL, bob: URL, aliceKey: String, bobKey: String) {
        let alice = root.appendingPathComponent("alice")
        let bob = root.appendingPathComponent("bob")
        _ = try command(confab, data: alice, ["init", "--name", "alice"])
        _ = try command(confab, data: bob, ["init", "--name", "bob"])
        let aliceKey = try key(confab, data: alice)
        let bobKey = try key(confab, data: bob)
        _ = try command(confab, data: alice, ["peers", "add", bobKey, "--name", "bob"])
        _ = try command(confab, data: bob, ["peers", "add", aliceKey, "--name", "alice"])
        return (alice, bob, aliceKey, bobKey)
    }

    /// Alice's and Bob's `confab up`, on loopback with discovery off, Alice dialling Bob;
    /// ready once Alice has a session with Bob. `stop()` ends both.
    struct RunningPair {
        let alice: URL
        let bob: URL
        let aliceKey: String
        let bobKey: String
        let processes: [Process]

        func stop() { for process in processes { BenchProcesses.stop(process) } }
    }

    static func runningPair(_ confab: URL, root: URL) throws -> RunningPair {
        let (alice, bob, aliceKey, bobKey) = try acquaintedPair(confab, root: root)
        let bobNode = try node(confab, data: bob, ["--listen", "127.0.0.1:0"])
        let aliceNode: (process: Process, port: Int)
        do {
            aliceNode = try node(
                confab, data: alice, ["--listen", "127.0.0.1:0", "--peer", "\(bobKey)@127.0.0.1:\(bobNode.port)"])
        } catch {
            stop(bobNode.process)
            throw error
        }
        let pair = RunningPair(
            alice: alice, bob: bob, aliceKey: aliceKey, bobKey: bobKey,
            processes: [aliceNode.process, bobNode.process])
        do {
            try waitUntil("alice's session with bob") {
                try command(confab, data: alice, ["status", "--json"]).contains(bobKey)
            }
        } catch {
            pair.stop()
            throw error
        }
        return pair
    }

    @discardableResult
    static func command(_ confab: URL, data: URL, _ arguments: [String]) throws -> String {
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

    static func key(_ confab: URL, data: URL) throws -> String {
        let json = try command(confab, data: data, ["whoami", "--json"])
        guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let id = object["id"] as? String
        else { throw BenchFailure("whoami printed no id") }
        return id
    }

    /// `confab up` with discovery off; returns once its log names the port it listens on.
    static func node(_ confab: URL, data: URL, _ arguments: [String]) throws -> (process: Process, port: Int) {
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

    static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.interrupt()
        process.waitUntilExit()
    }

    static func waitUntil(
        _ what: String, timeout: Double = 30, every interval: useconds_t = 5_000, _ condition: () throws -> Bool
    ) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(interval)
        }
        throw BenchFailure("timed out waiting for \(what)")
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
