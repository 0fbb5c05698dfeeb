/// A box-stream could not be written or read. On the reading side every error means the
/// peer (or the network) is not playing by the rules: close the connection.
public struct BoxStreamError: Error, Equatable, CustomStringConvertible {
    private enum Reason: Equatable {
        case invalidKey(actual: Int)
        case invalidNonce(actual: Int)
        case emptyFrame
        case frameTooLong(Int)
        case streamClosed
        case headerNotAuthentic
        case bodyNotAuthentic
        case zeroLengthFrame
        case dataAfterGoodbye
    }

    private let reason: Reason

    public static func invalidKey(actual: Int) -> BoxStreamError { BoxStreamError(reason: .invalidKey(actual: actual)) }

    public static func invalidNonce(actual: Int) -> BoxStreamError {
        BoxStreamError(reason: .invalidNonce(actual: actual))
    }

    /// Encrypting: an empty body cannot be framed, since length 0 is reserved for goodbye.
    public static let emptyFrame = BoxStreamError(reason: .emptyFrame)

    /// A body longer than `BoxStream.maxBodyLength`: refused when encrypting one frame, and
    /// a protocol violation when a received header announces it.
    public static func frameTooLong(_ length: Int) -> BoxStreamError { BoxStreamError(reason: .frameTooLong(length)) }

    /// Encrypting after the goodbye was produced.
    public static let streamClosed = BoxStreamError(reason: .streamClosed)

    /// A received header failed authentication: wrong key, wrong nonce (lost or reordered
    /// data), or tampering.
    public static let headerNotAuthentic = BoxStreamError(reason: .headerNotAuthentic)

    /// A received body did not match the tag its header announced.
    public static let bodyNotAuthentic = BoxStreamError(reason: .bodyNotAuthentic)

    /// A received header announced an empty body without being a goodbye.
    public static let zeroLengthFrame = BoxStreamError(reason: .zeroLengthFrame)

    /// Bytes arrived after the goodbye.
    public static let dataAfterGoodbye = BoxStreamError(reason: .dataAfterGoodbye)

    public var description: String {
        switch reason {
        case .invalidKey(let actual): return "box-stream key must be \(SecretBox.keyLength) bytes, got \(actual)"
        case .invalidNonce(let actual): return "box-stream nonce must be \(SecretBox.nonceLength) bytes, got \(actual)"
        case .emptyFrame: return "box-stream frame body must not be empty"
        case .frameTooLong(let length):
            return "box-stream frame body of \(length) bytes exceeds \(BoxStream.maxBodyLength)"
        case .streamClosed: return "box-stream already ended with goodbye"
        case .headerNotAuthentic: return "box-stream header failed authentication"
        case .bodyNotAuthentic: return "box-stream body failed authentication"
        case .zeroLengthFrame: return "box-stream header announces an empty body"
        case .dataAfterGoodbye: return "box-stream data after goodbye"
        }
    }
}
