import ConfabClient
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
        let pair = try BenchProcesses.runningPair(confab, root: root)
        defer { pair.stop() }
        let (alice, bob, aliceKey) = (pair.alice, pair.bob, pair.aliceKey)

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
        try BenchProcesses.waitUntil("bob to hold every line", timeout: 600) {
            try store.allClocks().values.reduce(0) { $0 + Int($1[author]) } >= lines + 1
        }
        let delivered = DispatchTime.now().uptimeNanoseconds
        return Result(
            lines: lines, sendSeconds: Double(sent - start) / 1e9, deliverSeconds: Double(delivered - start) / 1e9)
    }
}
