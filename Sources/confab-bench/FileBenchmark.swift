import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A file between two `confab up` processes on loopback, as `confab send-file` sends it:
/// MB/s beside a raw TCP copy of the same bytes over loopback in the same run, and the
/// one-way latency of chat messages sent during the transfer beside the same without one.
enum FileBenchmark {
    struct Result {
        let bytes: Int
        /// `send-file` (the file encrypted into the sender's store, its message written).
        let importSeconds: Double
        /// From `send-file` returning until the recipient's node held the whole file.
        let transferSeconds: Double
        /// The same bytes over a plain TCP connection on loopback, read and written in 1 MiB
        /// pieces, nothing else done with them.
        let rawSeconds: Double
        /// Chat messages' one-way latency (ms, sorted), idle and during the transfer.
        let idleLatency: [Double]
        let busyLatency: [Double]
    }

    static func run(confab: URL, megabytes: Int) async throws -> Result {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("confab-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let source = root.appendingPathComponent("payload.bin")
        try writeRandom(source, bytes: megabytes << 20)
        let rawSeconds = try rawCopy(source)

        let pair = try BenchProcesses.runningPair(confab, root: root)
        defer { pair.stop() }
        let (alice, bob) = (pair.alice, pair.bob)
        // Over the automatic-download limit otherwise: bob takes files of any size here.
        try BenchProcesses.command(confab, data: bob, ["files", "--auto-download", "100GB"])

        let chat = try await Chat(alice: alice, bob: bob)
        defer { chat.close() }
        var idle: [Double] = []
        for index in 0..<50 { idle.append(try await chat.send("idle \(index)")) }

        let start = DispatchTime.now().uptimeNanoseconds
        let id = try BenchProcesses.command(confab, data: alice, ["send-file", "bob", source.path, "--json"])
        let imported = DispatchTime.now().uptimeNanoseconds
        guard let fileID = (try JSONSerialization.jsonObject(with: Data(id.utf8)) as? [String: Any])?["file"] as? String
        else { throw BenchFailure("send-file printed no file id") }
        let store = try Profile.open(DataDirectory(url: bob)).store
        var busy: [Double] = []
        var done = false
        while !done {
            busy.append(try await chat.send("busy \(busy.count)"))
            done = try store.files().contains { $0.fileID.hex == fileID && $0.state == .complete }
            if !done { usleep(20_000) }
        }
        let finished = DispatchTime.now().uptimeNanoseconds
        return Result(
            bytes: megabytes << 20, importSeconds: Double(imported - start) / 1e9,
            transferSeconds: Double(finished - imported) / 1e9, rawSeconds: rawSeconds, idleLatency: idle.sorted(),
            busyLatency: busy.sorted())
    }

    private static func writeRandom(_ url: URL, bytes: Int) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var generator = SystemRandomNumberGenerator()
        var words = [UInt64](repeating: 0, count: 1 << 17)
        var written = 0
        while written < bytes {
            for index in words.indices { words[index] = generator.next() }
            let count = min(words.count * 8, bytes - written)
            words.withUnsafeBytes { handle.write(Data($0.prefix(count))) }
            written += count
        }
    }

    /// The ceiling: the file's bytes over one TCP connection on loopback, as `nc` would.
    private static func rawCopy(_ source: URL) throws -> Double {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw BenchFailure("socket: errno \(errno)") }
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else { throw BenchFailure("binding the raw copy's socket: errno \(errno)") }
        let reader = Thread {
            let connection = accept(listener, nil, nil)
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while read(connection, &buffer, buffer.count) > 0 {}
            close(connection)
        }
        reader.start()
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        let connection = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(connection, $0, length) == 0 }
        }
        guard connected else { throw BenchFailure("connecting the raw copy: errno \(errno)") }
        let start = DispatchTime.now().uptimeNanoseconds
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            chunk.withUnsafeBytes { bytes in
                var sent = 0
                while sent < bytes.count {
                    let n = write(connection, bytes.baseAddress! + sent, bytes.count - sent)
                    guard n > 0 else { break }
                    sent += n
                }
            }
        }
        shutdown(connection, Int32(SHUT_WR))
        while !reader.isFinished { usleep(1_000) }
        close(connection)
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Messages sent one at a time through alice's running node (its control socket), each
    /// timed until bob's node reports it stored (its control socket's event stream, as
    /// `confab watch` reads it).
    final class Chat {
        let alice: AttachedMessenger
        let bob: AttachedMessenger
        var events: AsyncStream<ControlEvent>.AsyncIterator
        var target: MessageTarget

        init(alice aliceData: URL, bob bobData: URL) async throws {
            let aliceProfile = try Profile.open(DataDirectory(url: aliceData))
            alice = try await AttachedMessenger(local: aliceProfile)
            bob = try await AttachedMessenger(local: try Profile.open(DataDirectory(url: bobData)))
            events = try await bob.wireEvents(for: nil).makeAsyncIterator()
            target = try Resolver(store: aliceProfile.store).messageTarget("bob")
            // The first message opens the conversation.
            _ = try await send("warm-up")
        }

        /// Milliseconds from the send call until bob's node reported the message.
        func send(_ text: String) async throws -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            let sent = try await alice.send(text, to: target)
            target = .conversation(sent.conversation)
            while let event = await events.next() {
                if event.event == .message, event.message?.text == text { break }
            }
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }

        func close() {
            let (alice, bob) = (alice, bob)
            Task {
                await alice.close()
                await bob.close()
            }
        }
    }
}
