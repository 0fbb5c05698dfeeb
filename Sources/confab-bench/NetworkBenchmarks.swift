import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation
import Logging
import NIOCore
import NIOPosix

/// Two real nodes in this process on 127.0.0.1 (discovery off, a static peer), measured
/// through their public APIs.
enum NetworkBenchmarks {
    struct Pair {
        let alice: Node
        let bob: Node
        let root: URL
    }

    static func makeNodes(prepare: (Profile, Profile) throws -> Void = { _, _ in }) async throws -> Pair {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "confab-bench-net-\(UUID().uuidString)")
        let aliceDir = DataDirectory(url: root.appendingPathComponent("alice"))
        let bobDir = DataDirectory(url: root.appendingPathComponent("bob"))
        let aliceLocal = try Profile.initialize(aliceDir, name: "alice")
        let bobLocal = try Profile.initialize(bobDir, name: "bob")
        try aliceLocal.store.savePeer(bobLocal.me, name: "bob")
        try bobLocal.store.savePeer(aliceLocal.me, name: "alice")
        try prepare(aliceLocal, bobLocal)
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        var aliceOptions = NodeOptions(directory: aliceDir)
        aliceOptions.listenHost = "127.0.0.1"
        aliceOptions.listenPort = 0
        aliceOptions.discovery = false
        aliceOptions.logger = logger
        let alice = try Node(options: aliceOptions)
        let address = try await alice.start()
        var bobOptions = NodeOptions(directory: bobDir)
        bobOptions.listenHost = "127.0.0.1"
        bobOptions.listenPort = 0
        bobOptions.discovery = false
        bobOptions.staticPeers = ["\(aliceLocal.me.hex)@127.0.0.1:\(address.port!)"]
        bobOptions.logger = logger
        let bob = try Node(options: bobOptions)
        return Pair(alice: alice, bob: bob, root: root)
    }

    /// One-way latency: from alice's send call to bob's message event, one message at a time;
    /// and, as its floor, alice's store writing a message alone (signed, sealed, stored and
    /// fsynced, which a send waits for before the message may leave: Protocol.md §8.0).
    static func latency(messages: Int) async throws -> (samples: [Double], durableCommits: [Double]) {
        let pair = try await makeNodes()
        defer { try? FileManager.default.removeItem(at: pair.root) }
        let events = pair.bob.events()
        try await pair.bob.start()
        let messenger = pair.alice.messenger
        // Wait for the session (the first message also creates the conversation).
        let first = try await messenger.send(
            "warm-up", to: Resolver(store: pair.alice.local.store).messageTarget("bob"))
        let bob = MessageTarget.conversation(first.conversation)
        var iterator = events.makeAsyncIterator()
        while let event = await iterator.next() {
            if case .message(let m) = event, m.text == "warm-up" { break }
        }
        var samples: [Double] = []
        var sendOnly: [Double] = []
        for i in 0..<messages {
            let text = "latency \(i)"
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try await messenger.send(text, to: bob)
            sendOnly.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            while let event = await iterator.next() {
                if case .message(let m) = event, m.text == text { break }
            }
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        guard case .conversation(let id) = bob else { preconditionFailure("the warm-up made the conversation") }
        var commits: [Double] = []
        for i in 0..<200 {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try pair.alice.local.store.sendMessage("durable \(i)", to: id)
            commits.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        if ProcessInfo.processInfo.environment["CONFAB_BENCH_DETAIL"] != nil {
            // The parts of a send, one at a time, as `LocalMessenger.send` runs them.
            let store = pair.alice.local.store
            var lookup: [Double] = []
            var write: [Double] = []
            var hand: [Double] = []
            for i in 0..<200 {
                let t0 = DispatchTime.now().uptimeNanoseconds
                _ = try store.otherParticipants(of: id)
                let t1 = DispatchTime.now().uptimeNanoseconds
                let entry = try store.sendMessage("detail \(i)", to: id)
                let t2 = DispatchTime.now().uptimeNanoseconds
                try await pair.alice.didWrite([entry])
                let t3 = DispatchTime.now().uptimeNanoseconds
                lookup.append(Double(t1 - t0) / 1e6)
                write.append(Double(t2 - t1) / 1e6)
                hand.append(Double(t3 - t2) / 1e6)
            }
            print(
                "  participants lookup p50 \(percentile(lookup.sorted(), 0.5)) ms, sendMessage p50 "
                    + "\(percentile(write.sorted(), 0.5)) ms, node.didWrite p50 \(percentile(hand.sorted(), 0.5)) ms")
        }
        await pair.alice.stop()
        await pair.bob.stop()
        if ProcessInfo.processInfo.environment["CONFAB_BENCH_DETAIL"] != nil {
            print("  send call alone: p50 \(percentile(sendOnly.sorted(), 0.5)) ms")
        }
        return (samples.sorted(), commits.sorted())
    }

    /// Initial sync: alice holds `conversations` × `perConversation` messages; bob starts
    /// empty. Returns (entries moved, seconds).
    static func initialSync(conversations: Int, perConversation: Int) async throws -> (Int, Double) {
        var expected = 0.0
        let pair = try await makeNodes { alice, bob in
            for c in 0..<conversations {
                let id = try alice.store.createConversation(with: [bob.me], title: "sync \(c)").id
                var written = 0
                while written < perConversation {
                    let n = min(1000, perConversation - written)
                    _ = try alice.store.sendMessages(
                        (0..<n).map { "conversation \(c) message \(written + $0)" }, to: id)
                    written += n
                }
            }
            expected = try alice.store.allClocks().values.reduce(0) { $0 + Double($1[alice.me]) }
        }
        defer { try? FileManager.default.removeItem(at: pair.root) }
        let bobStore = pair.bob.local.store
        let start = DispatchTime.now().uptimeNanoseconds
        try await pair.bob.start()
        var held = 0.0
        while true {
            // Count only alice's entries: bob's receipts add to bob's own heads.
            held = try bobStore.allClocks().values.reduce(0) { $0 + Double($1[pair.alice.me]) }
            if held >= expected { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        await pair.alice.stop()
        await pair.bob.stop()
        return (Int(held), seconds)
    }

    /// The ceiling for latency: a bare TCP round trip over loopback with NIO, 64 bytes.
    static func loopbackRoundTrip(samples count: Int) async throws -> [Double] {
        let group = MultiThreadedEventLoopGroup.singleton
        let server = try await ServerBootstrap(group: group)
            .childChannelInitializer { $0.pipeline.addHandler(Echo()) }
            .bind(host: "127.0.0.1", port: 0).get()
        let client = try await ClientBootstrap(group: group)
            .connect(host: "127.0.0.1", port: server.localAddress!.port!) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        var samples: [Double] = []
        try await client.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            for _ in 0..<count {
                let start = DispatchTime.now().uptimeNanoseconds
                try await outbound.write(ByteBuffer(repeating: 7, count: 64))
                var received = 0
                while received < 64, let chunk = try await iterator.next() { received += chunk.readableBytes }
                samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
        }
        try await server.close()
        return samples.sorted()
    }

    final class Echo: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.writeAndFlush(data, promise: nil)
        }
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
}
