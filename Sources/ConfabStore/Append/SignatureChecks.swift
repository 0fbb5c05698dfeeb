import ConfabModel
import ConfabWire
import Synchronization

/// The signatures this node checked: how many (a batch's chain tops only, Protocol.md §7
/// step 3), and which recently, so that sending the same entries on as the top of a run
/// (§12 step 3) does not check them again.
public final class SignatureChecks: Sendable {
    private struct State {
        var checked = 0
        var recent: Set<EntryHash> = []
        var order: [EntryHash] = []
        var next = 0
    }

    /// Entries remembered as checked; older ones are checked again when sent on.
    static let remembered = 8_192
    private let state = Mutex(State())

    /// Signatures checked since the store opened.
    public var count: Int { state.withLock { $0.checked } }

    /// Whether `entry`'s own signature verifies; a valid one is remembered.
    public func check(_ entry: Entry) -> Bool {
        let valid = EntryCodec.hasValidSignature(entry)
        state.withLock { state in
            state.checked += 1
            if valid { Self.remember(entry.hash, in: &state) }
        }
        return valid
    }

    public func isKnownValid(_ hash: EntryHash) -> Bool {
        state.withLock { $0.recent.contains(hash) }
    }

    private static func remember(_ hash: EntryHash, in state: inout State) {
        guard !state.recent.contains(hash) else { return }
        if state.order.count < remembered {
            state.order.append(hash)
        } else {
            state.recent.remove(state.order[state.next])
            state.order[state.next] = hash
            state.next = (state.next + 1) % remembered
        }
        state.recent.insert(hash)
    }
}
