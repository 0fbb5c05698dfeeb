/// A store operation could not be done. Messages say what happened and what to do.
public struct StoreError: Error, Equatable, CustomStringConvertible {
    private enum Reason: Equatable {
        case wrongOwner(storeOwner: String, identity: String)
        case unknownConversation(String)
        case notAParticipant(String)
        case invalidInput(String)
        case unknownPeer(String)
        case ownLogBehind(conversation: String, held: UInt64, known: UInt64)
        case deviceRemoved(MyDeviceRemoval)
    }

    private let reason: Reason

    static func wrongOwner(storeOwner: String, identity: String) -> StoreError {
        StoreError(reason: .wrongOwner(storeOwner: storeOwner, identity: identity))
    }

    public static func unknownConversation(_ id: String) -> StoreError {
        StoreError(reason: .unknownConversation(id))
    }

    static func notAParticipant(_ id: String) -> StoreError { StoreError(reason: .notAParticipant(id)) }
    public static func invalidInput(_ what: String) -> StoreError { StoreError(reason: .invalidInput(what)) }
    public static func unknownPeer(_ id: String) -> StoreError { StoreError(reason: .unknownPeer(id)) }
    static func ownLogBehind(conversation: String, held: UInt64, known: UInt64) -> StoreError {
        StoreError(reason: .ownLogBehind(conversation: conversation, held: held, known: known))
    }

    static func deviceRemoved(_ removal: MyDeviceRemoval) -> StoreError {
        StoreError(reason: .deviceRemoved(removal))
    }

    /// The removal, when this is the refusal of a write by a device its person removed.
    public var deviceRemoval: MyDeviceRemoval? {
        if case .deviceRemoved(let removal) = reason { return removal }
        return nil
    }

    /// True when writing must wait until this node has fetched its own log from peers.
    public var isOwnLogBehind: Bool {
        if case .ownLogBehind = reason { return true }
        return false
    }

    public var description: String {
        switch reason {
        case .wrongOwner(let owner, let identity):
            return
                "this data directory belongs to identity \(owner.prefix(16))…, but the key file holds \(identity.prefix(16))…; "
                + "use the data directory that matches the key (--data DIR)"
        case .unknownConversation(let id):
            return "no conversation \(id) on this machine (run \"confab list\")"
        case .notAParticipant(let id):
            return "you are not a participant of conversation \(id)"
        case .invalidInput(let what):
            return what
        case .unknownPeer(let id):
            return "no peer \(id) (run \"confab peers\")"
        case .ownLogBehind(let conversation, let held, let known):
            return "this identity has written \(known) entries in conversation \(conversation.prefix(8)) but this "
                + "machine holds only \(held) (was the key restored here?); the message was not written — "
                + "connect to a peer so the missing entries arrive, then send again"
        case .deviceRemoved(let removal):
            return removal.message
        }
    }
}
