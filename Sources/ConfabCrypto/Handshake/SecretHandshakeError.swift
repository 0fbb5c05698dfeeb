/// The secret handshake was refused. Whatever the reason, the only correct reaction is to
/// close the connection without sending anything more; the reasons exist for logs and tests.
public struct SecretHandshakeError: Error, Equatable, CustomStringConvertible {
    private enum Reason: Equatable {
        case invalidNetworkKey(actual: Int)
        case serverKeyUnusable
        case wrongLength(message: Int, expected: Int, actual: Int)
        case challengeRejected(message: Int)
        case ephemeralKeyRejected(message: Int)
        case clientAuthUnreadable
        case clientSignatureInvalid
        case clientKeyUnusable
        case serverAcceptUnreadable
        case serverSignatureInvalid
        case outOfOrder(String)
        case primitiveFailed(String)
    }

    private let reason: Reason

    /// The network key is not 32 bytes (a configuration mistake, caught before any traffic).
    public static func invalidNetworkKey(actual: Int) -> SecretHandshakeError {
        SecretHandshakeError(reason: .invalidNetworkKey(actual: actual))
    }

    /// The server key the client was told to expect has no Curve25519 form, so no server
    /// could ever prove to own it.
    public static let serverKeyUnusable = SecretHandshakeError(reason: .serverKeyUnusable)

    /// Message `message` (1…4) did not have its fixed length.
    public static func wrongLength(message: Int, expected: Int, actual: Int) -> SecretHandshakeError {
        SecretHandshakeError(reason: .wrongLength(message: message, expected: expected, actual: actual))
    }

    /// The HMAC of challenge `message` (1 or 2) did not match: the peer uses another network
    /// key, or the bytes were altered.
    public static func challengeRejected(message: Int) -> SecretHandshakeError {
        SecretHandshakeError(reason: .challengeRejected(message: message))
    }

    /// The peer's ephemeral key is a point of small order, which would make a shared secret
    /// anyone can compute.
    public static func ephemeralKeyRejected(message: Int) -> SecretHandshakeError {
        SecretHandshakeError(reason: .ephemeralKeyRejected(message: message))
    }

    /// Message 3 did not decrypt: the client expected a different server key, or the bytes
    /// were altered.
    public static let clientAuthUnreadable = SecretHandshakeError(reason: .clientAuthUnreadable)

    /// Message 3 decrypted, but the client's signature does not verify.
    public static let clientSignatureInvalid = SecretHandshakeError(reason: .clientSignatureInvalid)

    /// The client's long-term key has no Curve25519 form.
    public static let clientKeyUnusable = SecretHandshakeError(reason: .clientKeyUnusable)

    /// Message 4 did not decrypt.
    public static let serverAcceptUnreadable = SecretHandshakeError(reason: .serverAcceptUnreadable)

    /// Message 4 decrypted, but the server's signature does not verify.
    public static let serverSignatureInvalid = SecretHandshakeError(reason: .serverSignatureInvalid)

    /// A step was called out of turn: after a failure, after completion, or before the
    /// message it depends on. Programming error on our side, reported rather than trapped.
    public static func outOfOrder(_ what: String) -> SecretHandshakeError {
        SecretHandshakeError(reason: .outOfOrder(what))
    }

    /// A libsodium call failed although its inputs had the lengths it needs; not expected
    /// to happen, but reported rather than trapped.
    public static func primitiveFailed(_ what: String) -> SecretHandshakeError {
        SecretHandshakeError(reason: .primitiveFailed(what))
    }

    /// Which handshake message (1…4) was refused, if the failure concerns one.
    public var message: Int? {
        switch reason {
        case .wrongLength(let message, _, _), .challengeRejected(let message), .ephemeralKeyRejected(let message):
            return message
        case .clientAuthUnreadable, .clientSignatureInvalid, .clientKeyUnusable:
            return 3
        case .serverAcceptUnreadable, .serverSignatureInvalid:
            return 4
        case .invalidNetworkKey, .serverKeyUnusable, .outOfOrder, .primitiveFailed:
            return nil
        }
    }

    public var description: String {
        switch reason {
        case .invalidNetworkKey(let actual):
            return "network key must be 32 bytes, got \(actual)"
        case .serverKeyUnusable:
            return "expected server key has no Curve25519 form"
        case .wrongLength(let message, let expected, let actual):
            return "handshake message \(message) must be \(expected) bytes, got \(actual)"
        case .challengeRejected(let message):
            return "handshake message \(message): challenge HMAC mismatch (different network key?)"
        case .ephemeralKeyRejected(let message):
            return "handshake message \(message): ephemeral key of small order"
        case .clientAuthUnreadable:
            return "handshake message 3 does not decrypt (client expected another server?)"
        case .clientSignatureInvalid:
            return "handshake message 3: client signature invalid"
        case .clientKeyUnusable:
            return "handshake message 3: client key has no Curve25519 form"
        case .serverAcceptUnreadable:
            return "handshake message 4 does not decrypt"
        case .serverSignatureInvalid:
            return "handshake message 4: server signature invalid"
        case .outOfOrder(let what):
            return "handshake step out of order: \(what)"
        case .primitiveFailed(let what):
            return "handshake: \(what) failed"
        }
    }
}
