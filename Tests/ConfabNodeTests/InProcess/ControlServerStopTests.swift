import ConfabClient
import Foundation
import Glibc
import Synchronization
import Testing

@testable import ConfabNode

/// A node stopping while clients keep connecting to its control socket: every connection
/// the socket took is closed by the node, none is dropped unserved. NIO traps on a
/// connection's channel dropped unfinished, so before `ControlServer` closed what it
/// accepted while closing, this crashed the test process.
@Suite(.serialized) struct ControlServerStopTests {
    @Test func connectionsMadeWhileTheNodeStopsAreAllClosed() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        // The race is a connection accepted in the moment the socket closes: each round
        // stops a node under a stream of connections (before the fix, one round in ten or
        // so trapped; 60 rounds take about 7 s).
        for round in 0..<60 {
            let node = try nodes.node("alice\(round)")
            try await node.start()
            let connector = Connector(path: ControlServer.socketPath(node.local.directory))
            let thread = Thread { connector.run() }
            thread.start()
            // Connections are being served before the stop begins.
            let first = try #require(await connector.firstConnection())
            #expect(await offThePool { Connector.answered(first) }, "the node answered the first connection's line")
            await node.stop()
            connector.finish()
            #expect(await connector.finished(), "round \(round): the connector never saw the socket go")
            let connections = connector.connections
            let open = await offThePool { Connector.leftOpen(connections) }
            #expect(open.isEmpty, "round \(round): \(open.count) connections left open by a stopped node")
            #expect(connector.connections.count > 1, "round \(round): only one connection was made")
            connector.closeAll()
        }
    }
}

/// `body`, which blocks, on a thread of its own: on the few threads of the concurrency pool
/// it would hold up the very node it waits for.
private func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Connects to a Unix socket again and again on a thread of its own, writing an empty line
/// on each connection (a line the node answers), until told to finish and the socket is gone.
private final class Connector: Sendable {
    let path: String
    private let state = Mutex(State())

    private struct State {
        var connections: [Int32] = []
        var finishing = false
        var done = false
    }

    init(path: String) { self.path = path }

    var connections: [Int32] { state.withLock { $0.connections } }

    func finish() { state.withLock { $0.finishing = true } }

    func run() {
        while true {
            let (finishing, count) = state.withLock { ($0.finishing, $0.connections.count) }
            // Bounded, so a slow stop cannot use up the process's descriptors.
            if count >= 400 { break }
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { break }
            if connect(fd) {
                var newline = UInt8(ascii: "\n")
                _ = send(fd, &newline, 1, Int32(MSG_NOSIGNAL))
                state.withLock { $0.connections.append(fd) }
            } else {
                close(fd)
                // Nothing listens any more (or the backlog is full): done once told to be.
                if finishing { break }
                usleep(200)
            }
        }
        state.withLock { $0.done = true }
    }

    private func connect(_ fd: Int32) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        } == 0
    }

    func firstConnection() async -> Int32? {
        await pollState { $0.connections.first }
    }

    /// Whether the connecting thread ended (it stops once the socket is gone) within 20 s.
    @discardableResult
    func finished() async -> Bool {
        await pollState { $0.done ? true : nil } ?? false
    }

    /// A bounded poll of the thread's state: it reports nothing but its state, so there is
    /// no event to wait on; the ceiling is 20 s, never a fixed pause.
    private func pollState<T>(_ value: (State) -> T?) async -> T? {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let found = state.withLock({ value($0) }) { return found }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }

    func closeAll() {
        for fd in state.withLock({ $0.connections }) { close(fd) }
    }

    /// Whether a line came back on `fd` within 20 s.
    static func answered(_ fd: Int32) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 20_000) == 1 else { return false }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count > 0 && buffer.prefix(count).contains(UInt8(ascii: "\n"))
    }

    /// The connections of `fds` the other end has not closed (end of file or reset) within
    /// 20 s, reading past any answer it sent first.
    static func leftOpen(_ fds: [Int32]) -> [Int32] {
        var open = Set(fds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + .seconds(20)
        while !open.isEmpty, ContinuousClock.now < deadline {
            var descriptors = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&descriptors, nfds_t(descriptors.count), 1_000) >= 0 else { break }
            for descriptor in descriptors where descriptor.revents != 0 {
                if recv(descriptor.fd, &buffer, buffer.count, 0) <= 0 { open.remove(descriptor.fd) }
            }
        }
        return open.sorted()
    }
}
