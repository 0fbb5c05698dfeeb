import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// HTTP/1.1 spoken by hand over a loopback socket: a test must send the headers a browser or
/// an attacker would (any `Host`, any `Origin`), which an HTTP client library sets for itself.
struct LoopbackHTTP {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: String
        /// The body as bytes, for what is not text.
        var bytes: [UInt8]
    }

    struct Failure: Error {
        let text: String
    }

    let port: Int

    /// On a thread of its own: a blocking socket on the concurrency pool's few threads would
    /// keep the server's own tasks, which answer it, from running.
    func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: String = ""
    ) async throws -> Response {
        try await request(method, path, headers: headers, bytes: Array(body.utf8))
    }

    func request(
        _ method: String, _ path: String, headers: [String: String] = [:], bytes body: [UInt8]
    ) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            // A thread, not a Dispatch queue: its few threads would block on each other's sockets.
            Thread {
                continuation.resume(with: Result { try blockingRequest(method, path, headers: headers, body: body) })
            }.start()
        }
    }

    private func blockingRequest(
        _ method: String, _ path: String, headers: [String: String], body: [UInt8]
    ) throws -> Response {
        var all = ["Host": "127.0.0.1:\(port)", "Connection": "close", "Content-Length": "\(body.count)"]
        all.merge(headers) { _, given in given }
        let head = (["\(method) \(path) HTTP/1.1"] + all.sorted { $0.key < $1.key }.map { "\($0): \($1)" })
            .joined(separator: "\r\n")
        let raw = try exchange(Array((head + "\r\n\r\n").utf8) + body)
        return try Self.parse(raw)
    }

    private func exchange(_ bytes: [UInt8]) throws -> [UInt8] {
        let fd = try Self.connect(port: port, timeout: 10)
        defer { close(fd) }
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The server may answer (413) and close before reading everything.
            if result <= 0 { break }
            sent += result
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !Self.isComplete(received) {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[..<count]
        }
        return received
    }

    /// A TCP socket connected to 127.0.0.1:`port`, reads timing out after `timeout` seconds;
    /// `receiveBuffer` is set before connecting, so that the window it offers stays small.
    static func connect(port: Int, timeout seconds: Int, receiveBuffer: Int32? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(text: "no socket") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(text: "connect to 127.0.0.1:\(port): \(reason)")
        }
        return fd
    }

    /// Where the head ends (after its blank line), if it has.
    private static func bodyStart(_ received: [UInt8]) -> Int? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard received.count >= 4 else { return nil }
        return (0...(received.count - 4)).first { received[$0..<($0 + 4)].elementsEqual(separator) }.map { $0 + 4 }
    }

    /// Whether an answer's head and all of the body its Content-Length announces are in.
    private static func isComplete(_ received: [UInt8]) -> Bool {
        guard let start = bodyStart(received) else { return false }
        let head = String(decoding: received[..<start], as: UTF8.self).lowercased()
        let length =
            head.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return received.count - start >= length
    }

    private static func parse(_ raw: [UInt8]) throws -> Response {
        let start = bodyStart(raw) ?? raw.count
        let lines = String(decoding: raw[..<start], as: UTF8.self).components(separatedBy: "\r\n")
        let statusWords = lines.first?.split(separator: " ") ?? []
        guard statusWords.count > 1, let status = Int(statusWords[1]) else {
            throw Failure(text: "no answer: \(String(decoding: raw, as: UTF8.self))")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let bytes = Array(raw[start...])
        return Response(status: status, headers: headers, body: String(decoding: bytes, as: UTF8.self), bytes: bytes)
    }
}
