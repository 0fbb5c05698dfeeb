/// Bytes from the network or disk could not be accepted as a protocol value. The message
/// says what was wrong, for logs; the reason is also exposed coarsely for metrics.
public struct WireError: Error, Equatable, CustomStringConvertible {
    public enum Category: String, Sendable {
        case tooLarge = "too_large"
        case malformed
        case badSignature = "bad_signature"
    }

    private enum Reason: Equatable {
        case tooLarge(what: String, limit: Int, actual: Int)
        case malformed(String)
        case badSignature
    }

    private let reason: Reason

    public static func tooLarge(_ what: String, limit: Int, actual: Int) -> WireError {
        WireError(reason: .tooLarge(what: what, limit: limit, actual: actual))
    }

    public static func malformed(_ what: String) -> WireError {
        WireError(reason: .malformed(what))
    }

    public static let badSignature = WireError(reason: .badSignature)

    public var category: Category {
        switch reason {
        case .tooLarge: return .tooLarge
        case .malformed: return .malformed
        case .badSignature: return .badSignature
        }
    }

    public var description: String {
        switch reason {
        case .tooLarge(let what, let limit, let actual):
            return "\(what) is \(actual) (limit \(limit))"
        case .malformed(let what):
            return "malformed \(what)"
        case .badSignature:
            return "entry signature does not verify"
        }
    }
}
