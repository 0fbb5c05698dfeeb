/// Why a link did not happen, said for the person in front of the machine.
public struct LinkFailure: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The person here answered no.
        case refusedHere
        /// The other machine's person answered no (or the other side gave up).
        case refusedThere
        /// The offer could not be found or reached.
        case unreachable
        /// The offer did not accept the code.
        case codeRefused
        /// The offer ended: expired, or too many failed tries.
        case offerEnded
        /// The other side broke the protocol or sent a grant that does not check.
        case invalid
        /// This device may not offer a link.
        case notAllowed
        /// Something local failed (a store, a file).
        case local
    }

    public let kind: Kind
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
