import ConfabClient
import ConfabModel

/// Decides whether a beacon may make this node dial. A beacon's key is free to make and
/// its source address can be spoofed, so without limits a flood of beacons from fresh keys
/// would aim this node's connections at any host the sender picks (Protocol.md §11.4):
///
/// - a key whose dial failed waits before it is dialled again: 2 s, doubling to 5 min;
/// - keys this node does not know share a budget: 2 dials a second, 8 at once at most;
/// - one address is dialled for at most one unknown key every 30 s (that key may be
///   dialled there again, after its own backoff);
/// - at most 8 beacon dials are in flight at any time.
///
/// Pure and driven by the caller's clock, so it is tested without waiting.
struct BeaconDialPolicy {
    static let maxInFlight = 8
    static let unknownRate = 2.0
    static let unknownBurst = 8.0
    static let addressQuiet: Duration = .seconds(30)
    static let firstBackoff: Duration = .seconds(2)
    static let maxBackoff: Duration = .seconds(300)
    /// Keys and addresses remembered for backoff; the oldest are forgotten beyond this.
    static let memory = 4096

    private(set) var inFlight: Set<NodeID> = []
    private var tokens = unknownBurst
    private var tokensAt: ContinuousClock.Instant?
    private var backoff: [NodeID: (wait: Duration, until: ContinuousClock.Instant)] = [:]
    private var addressUntil: [String: (key: NodeID, until: ContinuousClock.Instant)] = [:]

    /// Whether to dial `key` at `address` now; when true the dial counts as in flight until
    /// `finished` is called.
    mutating func mayDial(_ key: NodeID, at address: String, known: Bool, now: ContinuousClock.Instant) -> Bool {
        guard inFlight.count < Self.maxInFlight, !inFlight.contains(key) else { return false }
        if let wait = backoff[key], now < wait.until { return false }
        if !known {
            if let claimed = addressUntil[address], claimed.key != key, now < claimed.until { return false }
            refill(now)
            guard tokens >= 1 else { return false }
            tokens -= 1
            addressUntil[address] = (key, now + Self.addressQuiet)
            if addressUntil.count > Self.memory { addressUntil = addressUntil.filter { $0.value.until > now } }
        }
        inFlight.insert(key)
        return true
    }

    /// A dial ended: a failure backs the key off, a session clears its backoff.
    mutating func finished(_ key: NodeID, connected: Bool, now: ContinuousClock.Instant) {
        inFlight.remove(key)
        if connected {
            backoff[key] = nil
            return
        }
        let wait = backoff[key].map { min($0.wait * 2, Self.maxBackoff) } ?? Self.firstBackoff
        backoff[key] = (wait, now + wait)
        if backoff.count > Self.memory { backoff = backoff.filter { $0.value.until > now } }
    }

    private mutating func refill(_ now: ContinuousClock.Instant) {
        if let last = tokensAt {
            let elapsed = (now - last) / .seconds(1)
            tokens = min(Self.unknownBurst, tokens + max(0, elapsed) * Self.unknownRate)
        }
        tokensAt = now
    }
}
