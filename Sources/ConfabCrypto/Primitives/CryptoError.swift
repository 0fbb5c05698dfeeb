/// A cryptographic operation failed. The reason is deliberately coarse: callers must not
/// branch on *why* authentication failed, only that it did.
public struct CryptoError: Error, Equatable, CustomStringConvertible {
    private enum Reason: Equatable {
        case invalidLength(what: String, expected: Int, actual: Int)
        case authenticationFailed(String)
        case invalidKey(String)
        case operationFailed(String)
    }

    private let reason: Reason

    public static func invalidLength(_ what: String, expected: Int, actual: Int) -> CryptoError {
        CryptoError(reason: .invalidLength(what: what, expected: expected, actual: actual))
    }

    public static func authenticationFailed(_ what: String) -> CryptoError {
        CryptoError(reason: .authenticationFailed(what))
    }

    public static func invalidKey(_ what: String) -> CryptoError {
        CryptoError(reason: .invalidKey(what))
    }

    public static func operationFailed(_ what: String) -> CryptoError {
        CryptoError(reason: .operationFailed(what))
    }

    public var isAuthenticationFailure: Bool {
        if case .authenticationFailed = reason { return true }
        return false
    }

    public var description: String {
        switch reason {
        case .invalidLength(let what, let expected, let actual):
            return "\(what) must be \(expected) bytes, got \(actual)"
        case .authenticationFailed(let what):
            return "\(what) failed authentication"
        case .invalidKey(let what):
            return "invalid key: \(what)"
        case .operationFailed(let what):
            return "\(what) failed"
        }
    }
}

@inline(__always)
func requireLength(_ bytes: some Collection<UInt8>, _ expected: Int, _ what: String) throws(CryptoError) {
    if bytes.count != expected {
        throw .invalidLength(what, expected: expected, actual: bytes.count)
    }
}

/// libsodium wants non-null pointers even for empty inputs; Swift gives nil for an empty
/// buffer. This hands a valid pointer either way.
@inline(__always)
func withBytePointer<R>(_ bytes: some ContiguousBytes, _ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
    bytes.withUnsafeBytes { raw in
        if let base = raw.baseAddress, raw.count > 0 {
            return body(base.assumingMemoryBound(to: UInt8.self), raw.count)
        }
        var empty: UInt8 = 0
        return withUnsafePointer(to: &empty) { body($0, 0) }
    }
}
