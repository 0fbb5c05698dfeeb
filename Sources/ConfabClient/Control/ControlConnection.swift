import ConfabModel
import Foundation
import Glibc
import Synchronization

/// One connection to a running node's control socket, on a plain Unix socket and a reading
/// thread of its own: a front end needs no event loop to talk to its node. Requests are
/// answered in order, so many may be in flight at once (a script sending thousands of lines
/// keeps one connection and does not wait a round trip per line); after `watch` is
/// answered, every further line is an event.
final class ControlConnection: Sendable {
    /// Lines that answer no request: the events of a `watch`.
    let unsolicited: AsyncStream<Data>
    private let socket: Int32
    private let state = Mutex(State())
    /// Held while a call registers its answers and writes its lines, so that answers are
    /// expected in the order the lines go out. The reader never takes it.
    private let writing = Mutex(())

    private struct State {
        var nextCall = 0
        /// The answer each line written waits for, in order: a call and its index.
        var expected: [(call: Int, index: Int)] = []
        var expectedStart = 0
        var calls: [Int: Call] = [:]
        var closed = false
    }

    private struct Call {
        var answers: [Data?]
        var remaining: Int
        let continuation: CheckedContinuation<[Data], any Error>
    }

    /// Connects, or throws `ClientError.notRunning` when nobody serves the socket.
    init(_ directory: DataDirectory) throws {
        let path = directory.controlSocket.path
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError.control("cannot open a socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            Glibc.close(fd)
            throw ClientError.control(
                "the data directory's path is too long for its control socket (\(path.utf8.count) bytes, at most \(capacity - 1)); use a shorter --data path"
            )
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw ClientError.notRunning(directory.path)
        }
        socket = fd
        let (stream, continuation) = AsyncStream.makeStream(of: Data.self, bufferingPolicy: .bufferingNewest(10_000))
        unsolicited = stream
        let thread = Thread { [self] in read(events: continuation) }
        thread.name = "confab-control"
        thread.start()
    }

    /// Sends a request and returns its answer line.
    func call(_ line: String) async throws -> Data {
        try await callAll([line])[0]
    }

    /// Sends every line before reading any answer (pipelining: one round trip for the lot),
    /// and returns the answer lines in order.
    func callAll(_ lines: [String]) async throws -> [Data] {
        guard !lines.isEmpty else { return [] }
        var bytes: [UInt8] = []
        for line in lines {
            bytes += line.utf8
            bytes.append(UInt8(ascii: "\n"))
        }
        return try await withCheckedThrowingContinuation { continuation in
            writing.withLock { _ in
                let id: Int? = state.withLock { state in
                    guard !state.closed else { return nil }
                    let id = state.nextCall
                    state.nextCall += 1
                    state.calls[id] = Call(
                        answers: Array(repeating: nil, count: lines.count), remaining: lines.count,
                        continuation: continuation)
                    state.expected += lines.indices.map { (id, $0) }
                    return id
                }
                guard let id else {
                    continuation.resume(throwing: ClientError.control("the node closed the control connection"))
                    return
                }
                if let failure = write(bytes) {
                    // The node went away mid-request: whoever fails the calls first resumes them.
                    shutdown(socket, Int32(SHUT_RDWR))
                    failAll(ClientError.control("cannot reach the node: \(failure)"), only: id)
                }
            }
        }
    }

    /// Ends the connection; the reading thread closes the socket once it stops reading.
    func close() {
        shutdown(socket, Int32(SHUT_RDWR))
    }

    /// Writes all of `bytes`, or says why not. `MSG_NOSIGNAL`: a node that died must be an
    /// error here, not a SIGPIPE that ends the process.
    private func write(_ bytes: [UInt8]) -> String? {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            offset += sent
        }
        return nil
    }

    /// Reads lines until the node closes the connection: answers in order, then events.
    private func read(events: AsyncStream<Data>.Continuation) {
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[0..<count])
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                deliver(Data(pending[start..<newline]), events: events)
                start = pending.index(after: newline)
            }
            pending.removeSubrange(pending.startIndex..<start)
        }
        failAll(ClientError.control("the node closed the control connection"), only: nil)
        events.finish()
        Glibc.close(socket)
    }

    /// An answer to the oldest request still waiting for one, or an event when none waits.
    private func deliver(_ line: Data, events: AsyncStream<Data>.Continuation) {
        enum Outcome {
            case event
            case answered
            case finished(CheckedContinuation<[Data], any Error>, [Data])
        }
        let outcome: Outcome = state.withLock { state in
            guard state.expectedStart < state.expected.count else { return .event }
            let (id, index) = state.expected[state.expectedStart]
            state.expectedStart += 1
            if state.expectedStart == state.expected.count {
                state.expected.removeAll(keepingCapacity: true)
                state.expectedStart = 0
            }
            // A call that already failed drops its late answers.
            guard var call = state.calls[id] else { return .answered }
            call.answers[index] = line
            call.remaining -= 1
            guard call.remaining == 0 else {
                state.calls[id] = call
                return .answered
            }
            state.calls[id] = nil
            return .finished(call.continuation, call.answers.map { $0 ?? Data() })
        }
        switch outcome {
        case .event: events.yield(line)
        case .answered: break
        case .finished(let continuation, let answers): continuation.resume(returning: answers)
        }
    }

    /// Fails every call still waiting (or only `id`), and refuses new ones once the
    /// connection is gone.
    private func failAll(_ error: ClientError, only id: Int?) {
        let failed: [CheckedContinuation<[Data], any Error>] = state.withLock { state in
            if id == nil { state.closed = true }
            let ids = id.map { [$0] } ?? Array(state.calls.keys)
            return ids.compactMap { state.calls.removeValue(forKey: $0)?.continuation }
        }
        for continuation in failed { continuation.resume(throwing: error) }
    }
}
