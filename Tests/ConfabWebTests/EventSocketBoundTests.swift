import ConfabClient
import ConfabModel
import ConfabNode
import ConfabTestSupport
import Foundation
import Logging
import Testing

@testable import ConfabWeb

#if canImport(Glibc)
import Glibc
#endif

/// A tab that stops reading (a laptop lid, a frozen page) costs its node a bounded amount:
/// its queue of 1,000 events fills, its socket is closed with code 4008, and a tab that
/// connects again is subscribed afresh and reads the state again (Protocol.md §13.1).
/// A node not started (no network): its events are emitted by the test.
@Suite struct EventSocketBoundTests {
    /// Events of about 4 KiB (a peer's name is what makes them long): more than the queue
    /// and whatever the two sockets' buffers hold between the node and a tab that never reads
    /// (20 MiB in all).
    static let flood = 5_000
    static let nameLength = 4_000

    @Test func aTabThatNeverReadsIsClosedWith4008AndOneThatReconnectsIsAnsweredAfresh() async throws {
        let directory = DataDirectory(url: try ConfabBinary.temporaryDirectory("web-events"))
        var options = NodeOptions(directory: directory)
        options.listenHost = "127.0.0.1"
        options.listenPort = 0
        options.discovery = false
        options.logger = WebRoutesTests.Fixture.quiet
        let local = try Profile.initialize(directory, name: "Alice")
        let node = try Node(options: options, local: local)
        let messenger = LocalMessenger(local: local, node: node)
        let token = try LoginToken.loadOrCreate(in: directory)

        let (addresses, served) = AsyncStream.makeStream(of: String.self)
        let app = WebApp.application(
            configuration: WebConfiguration(host: "127.0.0.1", port: 0), messenger: messenger, token: token,
            logger: WebRoutesTests.Fixture.quiet
        ) { served.yield($0) }
        let running = Task { try await app.run() }
        defer { running.cancel() }
        var iterator = addresses.makeAsyncIterator()
        let address = try #require(await iterator.next())
        let port = try #require(Int(address.split(separator: ":").last?.dropLast() ?? ""))
        let cookie = "confab_session=\(token.cookieValue)"

        // A tab that never reads (a small receive window, so little waits in its socket),
        // and one that reads everything.
        let stalled = try await RawEventSocket.open(port: port, cookie: cookie, receiveBuffer: 4_096)
        defer { stalled.close() }
        let reader = try await RawEventSocket.open(port: port, cookie: cookie)
        defer { reader.close() }

        // In batches of half a queue, each read whole by the reading tab before the next is
        // emitted: that one never falls behind, the other never reads.
        let peer = NodeID(validatedBytes: [UInt8](repeating: 7, count: 32))
        let name = String(repeating: "n", count: Self.nameLength)
        let peerAddress = { (index: Int) in "10.0.\(index / 250).\(index % 250)" }
        for batch in stride(from: 0, to: Self.flood, by: EventSocket.queueLimit / 2) {
            let end = min(batch + EventSocket.queueLimit / 2, Self.flood)
            for index in batch..<end {
                node.emit(
                    .peerOnline(
                        PeerPresence(
                            id: peer, name: name, online: true, connected: true, address: peerAddress(index),
                            lastSeen: nil, role: .person)))
            }
            let last = #""address":"\#(peerAddress(end - 1))""#
            let read = try await reader.readUntil { $0.kind == .text && $0.text.contains(last) }
            #expect(read.count == end - batch)
        }

        // Now the tab that never read reads: fewer events than were produced (its queue and
        // the sockets' buffers), then the close frame with 4008.
        let stalledFrames = try await stalled.readUntil { $0.kind == .close }
        let events = stalledFrames.filter { $0.kind == .text }.count
        let close = try #require(stalledFrames.last)
        #expect(close.code == 4_008)
        #expect(events >= EventSocket.queueLimit)
        #expect(events < Self.flood)

        // Reconnected: subscribed afresh (the first frame), then new events, and the state is
        // read again over HTTP.
        let again = try await RawEventSocket.open(port: port, cookie: cookie)
        defer { again.close() }
        let conversation = ConversationID(validatedBytes: [UInt8](repeating: 9, count: 16))
        node.emit(.changed(conversation))
        let fresh = try await again.readUntil { $0.kind == .text && $0.text.contains(conversation.hex) }
        #expect(fresh.count == 1)
        #expect(fresh[0].text.contains(#""event":"changed""#))
        let list = try await LoopbackHTTP(port: port).request(
            "POST", "/api/v1/conversations",
            headers: ["Cookie": cookie, "Content-Type": "application/json", "Origin": "http://127.0.0.1:\(port)"],
            body: "{}")
        #expect(list.status == 200)
    }
}

/// A WebSocket on /api/v1/events spoken by hand over a blocking loopback socket, each call on
/// a thread of its own (as `LoopbackHTTP`): a test must be able to not read at all.
final class RawEventSocket: @unchecked Sendable {
    struct Frame: Sendable {
        enum Kind: Sendable { case text, close, other }
        let kind: Kind
        let text: String
        /// A close frame's code.
        let code: Int?
    }

    struct Failure: Error {
        let text: String
    }

    private let fd: Int32
    private var buffer: [UInt8]

    private init(fd: Int32, buffer: [UInt8]) {
        self.fd = fd
        self.buffer = buffer
    }

    /// Connected, upgraded and subscribed (its first frame, `{"ok":true,…}`, read).
    static func open(port: Int, cookie: String, receiveBuffer: Int32? = nil) async throws -> RawEventSocket {
        try await onThread {
            let fd = try LoopbackHTTP.connect(port: port, timeout: 30, receiveBuffer: receiveBuffer)
            let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            let request =
                [
                    "GET /api/v1/events HTTP/1.1", "Host: 127.0.0.1:\(port)", "Upgrade: websocket",
                    "Connection: Upgrade",
                    "Sec-WebSocket-Key: \(key)", "Sec-WebSocket-Version: 13", "Origin: http://127.0.0.1:\(port)",
                    "Cookie: \(cookie)",
                ].joined(separator: "\r\n") + "\r\n\r\n"
            let bytes = Array(request.utf8)
            guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count
            else {
                Glibc.close(fd)
                throw Failure(text: "the upgrade request was not sent")
            }
            let socket = RawEventSocket(fd: fd, buffer: [])
            do {
                let head = try socket.readHead()
                guard head.hasPrefix("HTTP/1.1 101") else { throw Failure(text: "not upgraded: \(head)") }
                let first = try socket.readFrame()
                guard first.kind == .text, first.text.contains(#""ok":true"#) else {
                    throw Failure(text: "not subscribed: \(first.text)")
                }
            } catch {
                socket.close()
                throw error
            }
            return socket
        }
    }

    /// Frames up to and including the first that `matches`; fails if the socket ends first.
    func readUntil(_ matches: @escaping @Sendable (Frame) -> Bool) async throws -> [Frame] {
        try await Self.onThread {
            var frames: [Frame] = []
            while true {
                let frame = try self.readFrame()
                frames.append(frame)
                if matches(frame) { return frames }
                if frame.kind == .close {
                    throw Failure(text: "closed (code \(frame.code ?? 0)) before the frame waited for")
                }
            }
        }
    }

    func close() {
        Glibc.close(fd)
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else {
            throw Failure(
                text: count == 0 ? "the connection ended" : "no bytes in 30 s: \(String(cString: strerror(errno)))")
        }
        buffer += chunk[..<count]
    }

    private func readHead() throws -> String {
        let separator: [UInt8] = [13, 10, 13, 10]
        while true {
            if buffer.count >= 4,
                let end = (0...(buffer.count - 4)).first(where: { buffer[$0..<($0 + 4)].elementsEqual(separator) })
            {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                return head
            }
            try fill()
        }
    }

    /// A server's frame (not masked); pings are answered as a browser does.
    private func readFrame() throws -> Frame {
        while true {
            if let (opcode, payload, used) = Self.frame(in: buffer) {
                buffer.removeFirst(used)
                switch opcode {
                case 0x1: return Frame(kind: .text, text: String(decoding: payload, as: UTF8.self), code: nil)
                case 0x8:
                    let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil
                    return Frame(kind: .close, text: String(decoding: payload.dropFirst(2), as: UTF8.self), code: code)
                case 0x9:
                    pong(payload)
                    continue
                default: return Frame(kind: .other, text: "", code: nil)
                }
            }
            try fill()
        }
    }

    private func pong(_ payload: [UInt8]) {
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        let frame = [0x8A, 0x80 | UInt8(payload.count)] + mask + payload.enumerated().map { $1 ^ mask[$0 % 4] }
        _ = frame.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    private static func frame(in buffer: [UInt8]) -> (opcode: UInt8, payload: [UInt8], used: Int)? {
        guard buffer.count >= 2 else { return nil }
        var length = Int(buffer[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard buffer.count >= 4 else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            offset = 4
        } else if length == 127 {
            guard buffer.count >= 10 else { return nil }
            length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
            offset = 10
        }
        guard buffer.count >= offset + length else { return nil }
        return (buffer[0] & 0x0F, Array(buffer[offset..<(offset + length)]), offset + length)
    }

    /// A thread, not the concurrency pool's few: a blocking socket there would keep the
    /// server's own tasks from running.
    private static func onThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
