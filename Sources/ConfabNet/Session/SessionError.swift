import NIOCore

/// Why a session could not be set up, or why it ended. Errors from the layers below
/// (`SecretHandshakeError`, `BoxStreamError`, `WireError`) are passed through unchanged;
/// these are the ones the network layer itself detects.
public struct SessionError: Error, Equatable, Sendable, CustomStringConvertible {
    private enum Reason: Equatable, Sendable {
        case handshakeTimedOut(TimeAmount)
        case firstMessageTimedOut(TimeAmount)
        case handshakeInterrupted
        case connectionLost
        case messageTooLarge(length: Int, limit: Int)
        case peerSilent(TimeAmount)
        case tooManySessions(limit: Int)
        case tooManyHandshakes(limit: Int)
        case tooManyHandshakesFromAddress(limit: Int)
        case tooManyDials(limit: Int)
        case shuttingDown
        case connectedToSelf
        case refused(String)
        case outboundBacklog(pending: Int, limit: Int)
    }

    private let reason: Reason

    /// The handshake did not complete within the configured time.
    public static func handshakeTimedOut(after timeout: TimeAmount) -> SessionError {
        SessionError(reason: .handshakeTimedOut(timeout))
    }

    /// An accepted connection did not deliver the handshake's message 1 within
    /// `SessionConfiguration.firstMessageTimeout`.
    public static func firstMessageTimedOut(after timeout: TimeAmount) -> SessionError {
        SessionError(reason: .firstMessageTimedOut(timeout))
    }

    /// The connection ended before the handshake completed. A server on another network
    /// closes without a word (Protocol.md §3.3), so this is what a wrong network key looks
    /// like from the dialling side.
    public static let handshakeInterrupted = SessionError(reason: .handshakeInterrupted)

    /// The connection ended without a box-stream goodbye: the peer crashed, the network
    /// broke, or something cut the connection. Data received until then was authentic.
    public static let connectionLost = SessionError(reason: .connectionLost)

    /// A session message longer than the limit was announced by the peer, or was about to
    /// be sent.
    public static func messageTooLarge(_ length: Int, limit: Int) -> SessionError {
        SessionError(reason: .messageTooLarge(length: length, limit: limit))
    }

    /// Nothing arrived from the peer for the dead-peer timeout, not even a Pong.
    public static func peerSilent(for timeout: TimeAmount) -> SessionError {
        SessionError(reason: .peerSilent(timeout))
    }

    /// The session would exceed `SessionConfiguration.maxSessions`, and no session with an
    /// unknown key could make way for it.
    public static func tooManySessions(limit: Int) -> SessionError {
        SessionError(reason: .tooManySessions(limit: limit))
    }

    /// The accepted connection would exceed `SessionConfiguration.maxPendingHandshakes`.
    public static func tooManyHandshakes(limit: Int) -> SessionError {
        SessionError(reason: .tooManyHandshakes(limit: limit))
    }

    /// The accepted connection would exceed
    /// `SessionConfiguration.maxPendingHandshakesPerAddress` for its source address.
    public static func tooManyHandshakesFromAddress(limit: Int) -> SessionError {
        SessionError(reason: .tooManyHandshakesFromAddress(limit: limit))
    }

    /// The dial would exceed `SessionConfiguration.maxDials`.
    public static func tooManyDials(limit: Int) -> SessionError {
        SessionError(reason: .tooManyDials(limit: limit))
    }

    /// The service is shutting down and accepts no new sessions.
    public static let shuttingDown = SessionError(reason: .shuttingDown)

    /// The peer proved to hold our own key: we dialled ourselves (for example through a
    /// stale address).
    public static let connectedToSelf = SessionError(reason: .connectedToSelf)

    /// This node refused the client's key after learning it in the handshake
    /// (`SessionConfiguration.admit`); the client was sent nothing, as for any handshake
    /// failure.
    public static func refused(_ key: some CustomStringConvertible) -> SessionError {
        SessionError(reason: .refused("\(key)"))
    }

    /// More bytes waited to be written than `SessionConfiguration.maxOutboundBacklog`: the
    /// peer is not reading what it is sent.
    public static func outboundBacklog(_ pending: Int, limit: Int) -> SessionError {
        SessionError(reason: .outboundBacklog(pending: pending, limit: limit))
    }

    public var isRefusal: Bool {
        if case .refused = reason { return true }
        return false
    }

    public var description: String {
        switch reason {
        case .handshakeTimedOut(let timeout):
            return "handshake not completed within \(timeout.milliseconds) ms"
        case .firstMessageTimedOut(let timeout):
            return "handshake message 1 not received within \(timeout.milliseconds) ms"
        case .handshakeInterrupted:
            return "connection closed during the handshake (wrong network key or peer key?)"
        case .connectionLost:
            return "connection ended without a box-stream goodbye"
        case .messageTooLarge(let length, let limit):
            return "session message of \(length) bytes exceeds the limit of \(limit)"
        case .peerSilent(let timeout):
            return "nothing received from the peer for \(timeout.milliseconds) ms"
        case .tooManySessions(let limit):
            return "session limit of \(limit) reached"
        case .tooManyHandshakes(let limit):
            return "limit of \(limit) connections in handshake reached"
        case .tooManyHandshakesFromAddress(let limit):
            return "limit of \(limit) connections in handshake from one address reached"
        case .tooManyDials(let limit):
            return "limit of \(limit) dials under way reached"
        case .shuttingDown:
            return "session service is shutting down"
        case .connectedToSelf:
            return "the peer holds our own key"
        case .refused(let key):
            return "refused the key \(key.prefix(8)) after the handshake proved it"
        case .outboundBacklog(let pending, let limit):
            return "the peer is not reading: \(pending) bytes wait to be sent, over the limit of \(limit)"
        }
    }
}

extension TimeAmount {
    var milliseconds: Int64 { nanoseconds / 1_000_000 }
}
