import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore
import ConfabWire
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

    /// Who gets the history: a contact meeting the sender for the first time (the initial
    /// sync), or a machine the sender's person just linked (issue 33), which reads all of it.
    enum Receiver {
        case contact
        case linkedDevice
    }

    static func run(
        confab: URL, conversations: Int, perConversation: Int, receiver: Receiver = .contact
    ) throws -> Result {
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

        // The receiver: Bob, or Alice's laptop, linked as `devices link` / `init --link` do
        // (the list adding it, then the grant's list and keys taken by the new machine).
        let receiving: URL
        switch receiver {
        case .contact:
            receiving = bob
        case .linkedDevice:
            receiving = root.appendingPathComponent("laptop")
            _ = try P.command(confab, data: receiving, ["init", "--name", "laptop"])
            let laptopKey = NodeID(hex: try P.key(confab, data: receiving))!
            let aliceStore = try Profile.open(DataDirectory(url: alice)).store
            _ = try aliceStore.addMyDevice(laptopKey, name: "laptop")
            // As `devices link` does: the personal conversation (and what was set before the
            // link) is made before the keys are read, so its key goes with them (§20.15).
            try aliceStore.ensurePersonalConversation()
            try Profile.open(DataDirectory(url: receiving)).store.takeLink(
                person: NodeID(hex: aliceKey)!,
                list: try aliceStore.deviceList(of: aliceStore.me).entries.map(DeviceEntryCodec.encode),
                displayName: "alice", keys: try aliceStore.epochKeys())
        }
        let receiverKey = try P.key(confab, data: receiving)
        let receiverNode = try P.node(confab, data: receiving, ["--listen", "127.0.0.1:0"])
        defer { P.stop(receiverNode.process) }
        let start = DispatchTime.now().uptimeNanoseconds
        let aliceNode = try P.node(
            confab, data: alice,
            ["--listen", "127.0.0.1:0", "--peer", "\(receiverKey)@127.0.0.1:\(receiverNode.port)"])
        defer { P.stop(aliceNode.process) }
        let store = try Profile.open(DataDirectory(url: receiving)).store
        let author = NodeID(hex: aliceKey)!
        try P.waitUntil("the receiver to hold alice's history", timeout: 900) {
            try store.allClocks().values.reduce(0) { $0 + Int($1[author]) } >= expected
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if receiver == .linkedDevice {
            // Held is not shown: the laptop must read every message, as its person's.
            let conversations = try store.conversations()
            guard conversations.count >= 1, conversations.allSatisfy({ $0.lastMessage?.text != nil }) else {
                throw ProcessSyncFailure(description: "the linked machine holds the history but cannot read it")
            }
        }
        return Result(entries: expected, seconds: seconds)
    }
}

struct ProcessSyncFailure: Error, CustomStringConvertible {
    let description: String
}
