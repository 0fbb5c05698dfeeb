import ConfabWire

/// Why an entry was not stored. A rejected entry changes nothing in the store.
public struct AppendRejection: Error, Equatable, CustomStringConvertible {
    /// Coarse reasons, stable for logs and metrics.
    public enum Category: String, Sendable {
        case undecodable
        case tooLarge = "too_large"
        case badSignature = "bad_signature"
        case unknownConversation = "unknown_conversation"
        case notParticipant = "not_participant"
        case gap
        case brokenChain = "broken_chain"
        case fork
        case badClock = "bad_clock"
    }

    private enum Reason: Equatable {
        case wire(WireError)
        case unknownConversation
        case notParticipant
        case gap(expected: UInt64, got: UInt64)
        case brokenChain
        case fork
        case badClock(String)
    }

    private let reason: Reason

    static func wire(_ error: WireError) -> AppendRejection { AppendRejection(reason: .wire(error)) }
    static let unknownConversation = AppendRejection(reason: .unknownConversation)
    static let notParticipant = AppendRejection(reason: .notParticipant)
    static func gap(expected: UInt64, got: UInt64) -> AppendRejection {
        AppendRejection(reason: .gap(expected: expected, got: got))
    }
    static let brokenChain = AppendRejection(reason: .brokenChain)
    static let fork = AppendRejection(reason: .fork)
    static func badClock(_ what: String) -> AppendRejection { AppendRejection(reason: .badClock(what)) }

    public var category: Category {
        switch reason {
        case .wire(let error):
            switch error.category {
            case .tooLarge: return .tooLarge
            case .malformed: return .undecodable
            case .badSignature: return .badSignature
            }
        case .unknownConversation: return .unknownConversation
        case .notParticipant: return .notParticipant
        case .gap: return .gap
        case .brokenChain: return .brokenChain
        case .fork: return .fork
        case .badClock: return .badClock
        }
    }

    /// A gap or an unknown conversation is not the sender's fault: entries may simply arrive
    /// before the ones they follow. Everything else means the sender is broken or hostile.
    public var isRecoverable: Bool {
        switch reason {
        case .gap, .unknownConversation: return true
        default: return false
        }
    }

    public var description: String {
        switch reason {
        case .wire(let error): return error.description
        case .unknownConversation: return "entry for a conversation whose create entry is not held"
        case .notParticipant: return "entry author is not a participant of the conversation"
        case .gap(let expected, let got): return "entry seq \(got) does not follow the held log (expected \(expected))"
        case .brokenChain: return "entry's previous hash does not match the author's previous entry"
        case .fork: return "a different entry with the same author and seq is already held"
        case .badClock(let what): return "entry's causal clock is invalid: \(what)"
        }
    }
}
