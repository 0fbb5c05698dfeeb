import ConfabModel
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
        case notMember = "not_member"
        case gap
        case missingDependency = "missing_dependency"
        case brokenChain = "broken_chain"
        case fork
        case forkedAuthor = "forked_author"
        case badClock = "bad_clock"
        case badTarget = "bad_target"
        case badMembership = "bad_membership"
        case legacyCreate = "legacy_create"
    }

    private enum Reason: Equatable {
        case wire(WireError)
        case unknownConversation
        case notParticipant
        case notMember
        case gap(expected: UInt64, got: UInt64)
        case missingDependency(NodeID, seq: UInt64, held: UInt64)
        case brokenChain
        case fork
        case forkedAuthor
        case badClock(String, intrinsic: Bool)
        case badTarget(String)
        case badMembership(String)
        case legacyCreate
    }

    private let reason: Reason
    /// Set when the rejected entry and one held here prove that their author forked its
    /// log: kept, shown and passed on (Protocol.md §7.1).
    public let proof: ForkProof?

    private init(reason: Reason, proof: ForkProof? = nil) {
        self.reason = reason
        self.proof = proof
    }

    static func wire(_ error: WireError) -> AppendRejection { AppendRejection(reason: .wire(error)) }
    static let unknownConversation = AppendRejection(reason: .unknownConversation)
    static let notParticipant = AppendRejection(reason: .notParticipant)
    static let notMember = AppendRejection(reason: .notMember)
    static func gap(expected: UInt64, got: UInt64) -> AppendRejection {
        AppendRejection(reason: .gap(expected: expected, got: got))
    }
    static func missingDependency(_ author: NodeID, seq: UInt64, held: UInt64) -> AppendRejection {
        AppendRejection(reason: .missingDependency(author, seq: seq, held: held))
    }
    static func brokenChain(proof: ForkProof?) -> AppendRejection {
        AppendRejection(reason: .brokenChain, proof: proof)
    }
    static func fork(proof: ForkProof?) -> AppendRejection { AppendRejection(reason: .fork, proof: proof) }
    static let forkedAuthor = AppendRejection(reason: .forkedAuthor)
    /// A clock that is wrong whatever the receiver holds (`intrinsic`), or wrong against
    /// what the receiver holds of the author's own log.
    static func badClock(_ what: String, intrinsic: Bool = true) -> AppendRejection {
        AppendRejection(reason: .badClock(what, intrinsic: intrinsic))
    }

    /// An edit or an unsend whose target, as held here, is not a message of its author that
    /// is still there to act on (Protocol.md §7 step 4). It depends on the held entry, so it
    /// never ends a session.
    static func badTarget(_ what: String) -> AppendRejection { AppendRejection(reason: .badTarget(what)) }

    /// A members entry, message or edit that breaks the membership rules in its author's own
    /// view (Protocol.md §4.8.3): depends on what is held, so it never ends a session.
    static func badMembership(_ what: String) -> AppendRejection { AppendRejection(reason: .badMembership(what)) }

    /// A protocol 1 create (Protocol.md §4.9) offered by a peer: its id is not derived, so
    /// it is taken from nobody. An honest node that held it before its upgrade may offer
    /// it, so it never ends a session.
    static let legacyCreate = AppendRejection(reason: .legacyCreate)

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
        case .notMember: return .notMember
        case .gap: return .gap
        case .missingDependency: return .missingDependency
        case .brokenChain: return .brokenChain
        case .fork: return .fork
        case .forkedAuthor: return .forkedAuthor
        case .badClock: return .badClock
        case .badTarget: return .badTarget
        case .badMembership: return .badMembership
        case .legacyCreate: return .legacyCreate
        }
    }

    /// Not applicable yet, possibly later: entries may arrive before the ones they follow
    /// or depend on (a gap, an unknown conversation, a causal dependency not held). The
    /// receiver keeps them a while and tries again.
    public var isRecoverable: Bool {
        switch reason {
        case .gap, .unknownConversation, .missingDependency: return true
        default: return false
        }
    }

    /// Whether the entry is invalid whatever the receiver holds, so whoever sent it is
    /// broken or hostile and the session ends. Everything that depends on what this node
    /// already holds (a fork, a broken chain, a forked author, a conversation it is not in)
    /// is not: an honest peer may forward such an entry, and closing its session would let
    /// one liar cut honest nodes apart.
    public var isSessionError: Bool {
        switch reason {
        case .wire: return true
        case .badClock(_, let intrinsic): return intrinsic
        default: return false
        }
    }

    public var description: String {
        switch reason {
        case .wire(let error): return error.description
        case .unknownConversation: return "entry for a conversation whose create entry is not held"
        case .notParticipant: return "entry author is not a participant of the conversation"
        case .notMember: return "a conversation this node is not a participant of (only relays keep those)"
        case .gap(let expected, let got): return "entry seq \(got) does not follow the held log (expected \(expected))"
        case .missingDependency(let author, let seq, let held):
            return "entry's causal clock names \(author.shortHex) at \(seq), but only \(held) of that log is held here"
        case .brokenChain: return "entry's previous hash does not match the author's previous entry"
        case .fork: return "a different entry with the same author and seq is already held"
        case .forkedAuthor: return "the author forked its log in this conversation; its entries are no longer taken"
        case .badClock(let what, _): return "entry's causal clock is invalid: \(what)"
        case .badTarget(let what): return "the message this entry edits or deletes \(what)"
        case .badMembership(let what): return "entry breaks the membership rules: \(what)"
        case .legacyCreate:
            return "a conversation of protocol 1 (its id not derived from its creator's key) is taken from no peer"
        }
    }
}
