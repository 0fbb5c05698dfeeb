import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

/// Initial sync as people meet it: a node that holds a large history, and an empty one,
/// as two separate `confab up` processes on loopback. Timed from starting the sender's
/// node until the receiver's store holds every entry of the sender's.
enum ProcessSyncBenchmark {
    typealias P = BenchProcesses

    struct Result {
        let entries: Int
        let seconds: Double
    }

    static func run(confab: URL, conversations: Int, perConversation: Int) throws -> Result {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("confab-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let alice = root.appendingPathComponent("alice")
        let bob = root.appendingPathComponent("bob")
        _ = try P.command(confab, data: alice, ["init", "--name", "alice"])
        _ = try P.command(confab, data: bob, ["init", "--name", "bob"])
        let aliceKey = try P.key(confab, data: alice)
        let bobKey = try P.key(confab, data: bob)
        _ = try P.command(confab, data: alice, ["peers", "add", bobKey, "--name", "bob"])
        _ = try P.command(confab, data: bob, ["peers", "add", aliceKey, "--name", "alice"])

        // The history, written before either node runs.
        var expected = 0
        do {
            let store = try Profile.open(DataDirectory(url: alice)).store
            let bobID = NodeID(hex: bobKey)!
            for c in 0..<conversations {
                let id = try store.createConversation(with: [bobID], title: "sync \(c)").id
                var written = 0
                while written < perConversation {
                    let n = min(1000, perConversation - written)
                    _ = try store.sendMessages((0..<n).map { "conversation \(c) message \(written + $0)" }, to: id)
                    written += n
                }
            }
            expected = try store.allClocks().values.reduce(0) { $0 + Int($1[store.me]) }
        }

        let bobNode = try P.node(confab, data: bob, ["--listen", "127.0.0.1:0"])
        defer { P.stop(bobNode.process) }
        let start = DispatchTime.now().uptimeNanoseconds
        let aliceNode = try P.node(
            confab, data: alice, ["--listen", "127.0.0.1:0", "--peer", "\(bobKey)@127.0.0.1:\(bobNode.port)"])
        defer { P.stop(aliceNode.process) }
        let store = try Profile.open(DataDirectory(url: bob)).store
        let author = NodeID(hex: aliceKey)!
        try P.waitUntil("bob to hold alice's history", timeout: 900) {
            try store.allClocks().values.reduce(0) { $0 + Int($1[author]) } >= expected
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Result(entries: expected, seconds: seconds)
    }
}
