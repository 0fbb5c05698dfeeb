import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNode
import ConfabStore
import ConfabWire
import Foundation

/// The send path end to end, as `confab send` has a node run it: messages sent one at a
/// time through the sending node's `LocalMessenger` (the handler the control socket runs),
/// stored, pushed to a peer node connected on loopback and stored there, each node with a
/// watcher as when a chat is open. Both nodes run in this process, so the process's CPU
/// time covers the whole path; wall time is mostly fsync and says little about the work.
enum SendPathBenchmark {
    struct Result {
        let messages: Int
        /// CPU time of the process (every thread) per message, in microseconds: in user
        /// space, and in the kernel (system calls: fsync, sockets, waking threads).
        let userPerMessage: Double
        let systemPerMessage: Double
        let wallSeconds: Double

        var cpuPerMessage: Double { userPerMessage + systemPerMessage }
    }

    static func run(messages: Int) async throws -> Result {
        let pair = try await NetworkBenchmarks.makeNodes()
        defer { try? FileManager.default.removeItem(at: pair.root) }
        let received = pair.bob.events()
        // The sender's watcher, drained as a chat would read it.
        let watching = Task { for await _ in pair.alice.events() {} }
        try await pair.bob.start()
        let messenger = pair.alice.messenger
        let first = try await messenger.send("warm-up", to: .newConversation(with: pair.bob.me))
        var events = received.makeAsyncIterator()
        try await arrival(of: "warm-up", in: &events)
        let conversation = MessageTarget.conversation(first.conversation)
        let cpu = processCPUTimes()
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<messages {
            _ = try await messenger.send("send path \(i), about as long as a chat line", to: conversation)
        }
        try await arrival(of: "send path \(messages - 1), about as long as a chat line", in: &events)
        let used = processCPUTimes()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        await pair.alice.stop()
        await pair.bob.stop()
        watching.cancel()
        return Result(
            messages: messages, userPerMessage: (used.user - cpu.user) * 1e6 / Double(messages),
            systemPerMessage: (used.system - cpu.system) * 1e6 / Double(messages), wallSeconds: wall)
    }

    /// The crypto one message costs whatever the implementation, in microseconds: the
    /// sender seals and signs it, the receiver checks the signature and opens it.
    static func cryptoCeiling(messages: Int) throws -> Double {
        let author = SigningKeyPair.generate()
        let key = ConversationCipher.generateKey()
        let conversation = ConversationID.random()
        let me = NodeID(author.publicKey)
        let cpu = processCPUSeconds()
        for seq in 1...UInt64(messages) {
            let sealed = try ConversationCipher.sealMessage(
                "send path \(seq), about as long as a chat line", key: key, conversationID: conversation, author: me,
                seq: seq)
            // About an entry's signed bytes: the sealed body and the header around it.
            let signed = sealed + Random.bytes(120)
            let signature = author.sign(signed)
            precondition(author.publicKey.verify(signature: signature, message: signed))
            precondition(
                (try? ConversationCipher.openMessageContent(
                    sealed, key: key, conversationID: conversation, author: me, seq: seq)) != nil)
        }
        return (processCPUSeconds() - cpu) * 1e6 / Double(messages)
    }

    private static func arrival(of text: String, in events: inout AsyncStream<NodeEvent>.Iterator) async throws {
        while let event = await events.next() {
            if case .message(let message) = event, message.text == text { return }
        }
        throw BenchFailure("bob's node stopped before \"\(text)\" arrived")
    }

    /// CPU time of every thread of this process so far.
    static func processCPUSeconds() -> Double {
        let times = processCPUTimes()
        return times.user + times.system
    }

    static func processCPUTimes() -> (user: Double, system: Double) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return (seconds(usage.ru_utime), seconds(usage.ru_stime))
    }
}
