import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

@testable import ConfabNet

// MARK: Keys

enum Keys {
    static let alice = SigningKeyPair.generate()
    static let bob = SigningKeyPair.generate()
    static let carol = SigningKeyPair.generate()
}

extension SigningKeyPair {
    var id: NodeID { NodeID(publicKey) }
}

// MARK: Logging

/// Collects log records so tests can check what was logged; prints them too when
/// CONFAB_TEST_LOG is set, which is the easiest way to see what a failing test did.
final class LogCapture: Sendable {
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let records = NIOLockedValueBox<[Record]>([])

    func logger(_ label: String) -> Logger {
        var logger = Logger(label: label) { label in CapturingHandler(label: label, capture: self) }
        logger.logLevel = .trace
        return logger
    }

    var all: [Record] { records.withLockedValue { $0 } }

    func append(_ record: Record) {
        records.withLockedValue { $0.append(record) }
    }

    private struct CapturingHandler: LogHandler {
        let label: String
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        static let echo = ProcessInfo.processInfo.environment["CONFAB_TEST_LOG"] != nil

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var merged = metadata
            if let extra = event.metadata { merged.merge(extra) { $1 } }
            let flat = merged.mapValues { "\($0)" }
            capture.append(Record(level: event.level, message: "\(event.message)", metadata: flat))
            if Self.echo {
                let text = flat.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                FileHandle.standardError.write(Data("[\(label)] \(event.level) \(event.message) \(text)\n".utf8))
            }
        }
    }
}

func quietLogger() -> Logger {
    LogCapture().logger("test")
}

// MARK: Waiting, bounded

struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Polls `condition` until it holds; throws after `timeout` so a hang fails the test.
func eventually(
    _ what: String, timeout: Duration = .seconds(5), _ condition: () throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw TimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// Runs `operation`, throwing `TimedOut` if it takes longer than `timeout`.
func withTimeout<T: Sendable>(
    _ what: String, _ timeout: Duration = .seconds(5), _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TimedOut(what: what)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

// MARK: Session delegate

final class RecordingDelegate: SessionDelegate {
    enum Event: Sendable, CustomStringConvertible {
        case opened(PeerSession)
        case received(PeerSession, SessionMessage)
        case closed(PeerSession, String?)

        var description: String {
            switch self {
            case .opened(let s): return "opened(\(s.id))"
            case .received(let s, let m): return "received(\(s.id), \(m))"
            case .closed(let s, let e): return "closed(\(s.id), \(e ?? "nil"))"
            }
        }
    }

    private let log = NIOLockedValueBox<[Event]>([])

    var events: [Event] { log.withLockedValue { $0 } }

    var opened: [PeerSession] {
        events.compactMap { if case .opened(let s) = $0 { return s } else { return nil } }
    }

    var closed: [(PeerSession, String?)] {
        events.compactMap { if case .closed(let s, let e) = $0 { return (s, e) } else { return nil } }
    }

    var received: [SessionMessage] {
        events.compactMap { if case .received(_, let m) = $0 { return m } else { return nil } }
    }

    func sessionDidOpen(_ session: PeerSession) {
        log.withLockedValue { $0.append(.opened(session)) }
    }

    func session(_ session: PeerSession, didReceive message: SessionMessage) {
        log.withLockedValue { $0.append(.received(session, message)) }
    }

    func sessionDidClose(_ session: PeerSession, error: (any Error)?) {
        log.withLockedValue { $0.append(.closed(session, error.map { "\($0)" })) }
    }
}

// MARK: Embedded channels

/// Sits at the tail of an embedded pipeline and keeps what reaches it.
final class TailRecorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    var events: [Any] = []
    var reads: [ByteBuffer] = []
    var errors: [any Error] = []
    /// The order in which events and reads arrived: "event" or "read".
    var order: [String] = []

    var readBytes: [UInt8] { reads.flatMap { Array($0.readableBytesView) } }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        events.append(event)
        order.append("event")
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reads.append(Self.unwrapInboundIn(data))
        order.append("read")
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        errors.append(error)
    }
}

extension EmbeddedChannel {
    /// Everything written so far, as bytes.
    func drainOutbound() throws -> [UInt8] {
        var out: [UInt8] = []
        while let buffer = try readOutbound(as: ByteBuffer.self) {
            out += buffer.readableBytesView
        }
        return out
    }

    func activate() throws {
        try connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    }
}

/// Moves bytes between two embedded channels until neither has anything left to say.
func shuttle(_ a: EmbeddedChannel, _ b: EmbeddedChannel) throws {
    var moved = true
    while moved {
        moved = false
        for (from, to) in [(a, b), (b, a)] where from.isActive && to.isActive {
            let bytes = try from.drainOutbound()
            if !bytes.isEmpty {
                moved = true
                try to.writeInbound(ByteBuffer(bytes: bytes))
            }
        }
    }
}

/// The keys of a completed handshake, computed with the pure state machines: what each
/// side's box-stream handlers start from.
func handshakeOutcomes(
    client: SigningKeyPair = Keys.alice, server: SigningKeyPair = Keys.bob, networkKey: NetworkKey = .default
) throws -> (client: SecretHandshakeOutcome, server: SecretHandshakeOutcome) {
    var c = try SecretHandshakeClient(
        networkKey: networkKey.bytes, keyPair: client, serverPublicKey: server.publicKey)
    var s = try SecretHandshakeServer(networkKey: networkKey.bytes, keyPair: server)
    let challenge = try s.receiveClientChallenge(c.challenge)
    let auth = try c.receiveServerChallenge(challenge)
    let (accept, serverOutcome) = try s.receiveClientAuth(auth)
    let clientOutcome = try c.receiveServerAccept(accept)
    return (clientOutcome, serverOutcome)
}

/// A session message with its length prefix, as the framing layer writes it.
func framed(_ message: SessionMessage) -> [UInt8] {
    let body = SessionCodec.encode(message)
    let length = UInt32(body.count)
    return [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)] + body
}
