import ConfabModel
import ConfabWire
import Synchronization

/// The signatures this node checked: how many (a batch's chain tops only, Protocol.md §7
/// step 3), and which recently, so that sending the same entries on as the top of a run
/// (§12 step 3) does not check them again, nor my own.
public final class SignatureChecks: Sendable {
    private struct State {
        var checked = 0
        /// Entries whose own signature verifies: checked here, or made here.
        var signed = RecentHashes(capacity: SignatureChecks.remembered)
    }

    /// Entries remembered as signed; older ones are checked again when sent on.
    static let remembered = 8_192
    private let state = Mutex(State())

    /// Signatures checked since the store opened.
    public var count: Int { state.withLock { $0.checked } }

    /// Whether `entry`'s own signature verifies; a valid one is remembered.
    public func check(_ entry: Entry) -> Bool {
        let valid = EntryCodec.hasValidSignature(entry)
        state.withLock { state in
            state.checked += 1
            if valid { state.signed.insert(entry.hash) }
        }
        return valid
    }

    /// An entry this node signed itself.
    func noteSigned(_ hash: EntryHash) {
        state.withLock { $0.signed.insert(hash) }
    }

    public func isKnownValid(_ hash: EntryHash) -> Bool {
        state.withLock { $0.signed.contains(hash) }
    }
}

/// The last `capacity` hashes inserted, as a set.
private struct RecentHashes {
    let capacity: Int
    private var members: Set<EntryHash> = []
    private var order: [EntryHash] = []
    private var next = 0

    init(capacity: Int) { self.capacity = capacity }

    func contains(_ hash: EntryHash) -> Bool { members.contains(hash) }

    mutating func insert(_ hash: EntryHash) {
        guard !members.contains(hash) else { return }
        if order.count < capacity {
            order.append(hash)
        } else {
            members.remove(order[next])
            order[next] = hash
            next = (next + 1) % capacity
        }
        members.insert(hash)
    }
}
