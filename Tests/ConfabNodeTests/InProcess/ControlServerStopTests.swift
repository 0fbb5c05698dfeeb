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
        // Connections made after the stop began, over all rounds: proof that the race was run.
        // Per round it is timing (a fast stop leaves the connector no time for a second).
        var duringStops = 0
        for round in 0..<60 {
            let node = try nodes.node("alice\(round)")
            try await node.start()
            let connector = Connector(path: ControlServer.socketPath(node.local.directory))
            let thread = Thread { connector.run() }
            thread.start()
            // Connections are being served before the stop begins.
            let first = try #require(await connector.firstConnection())
            #expect(await offThePool { Connector.answered(first) }, "the node answered the first connection's line")
            let beforeStop = connector.connections.count
            await node.stop()
            connector.finish()
            #expect(await connector.finished(), "round \(round): the connector never saw the socket go")
            let connections = connector.connections
            let open = await offThePool { Connector.leftOpen(connections) }
            #expect(open.isEmpty, "round \(round): \(open.count) connections left open by a stopped node")
            duringStops += connector.connections.count - beforeStop
            connector.closeAll()
        }
        #expect(duringStops > 0, "in 60 rounds no connection was made while a node stopped")
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
        /// Awaiting a condition on this state: resumed by the change that meets it.
        var waiters: [UUID: (condition: @Sendable (State) -> Bool, continuation: CheckedContinuation<Void, Never>)] =
            [:]
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
                changed { $0.connections.append(fd) }
            } else {
                close(fd)
                // Nothing listens any more (or the backlog is full): done once told to be;
                // until then, try again at once, giving the node's threads the processor.
                if finishing { break }
                sched_yield()
            }
        }
        changed { $0.done = true }
    }

    /// Applies a change and resumes whoever waited for what it brings about.
    private func changed(_ change: (inout State) -> Void) {
        let ready = state.withLock { state in
            change(&state)
            let met = state.waiters.filter { $0.value.condition(state) }.map(\.key)
            return met.compactMap { state.waiters.removeValue(forKey: $0)?.continuation }
        }
        for continuation in ready { continuation.resume() }
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
        await wait { !$0.connections.isEmpty }
        return state.withLock { $0.connections.first }
    }

    /// Whether the connecting thread ended (it stops once the socket is gone) within 20 s.
    @discardableResult
    func finished() async -> Bool {
        await wait { $0.done }
        return state.withLock { $0.done }
    }

    /// Returns once the thread's state meets `condition` (the change that meets it resumes
    /// this), or after 20 s, a ceiling for a thread that never gets there.
    private func wait(until condition: @escaping @Sendable (State) -> Bool) async {
        let id = UUID()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let met = state.withLock { state in
                if condition(state) { return true }
                state.waiters[id] = (condition, continuation)
                return false
            }
            if met { return continuation.resume() }
            DispatchQueue.global().asyncAfter(deadline: .now() + 20) { [self] in
                state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
            }
        }
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
