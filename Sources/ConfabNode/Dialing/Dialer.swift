import ConfabClient
import ConfabModel
import ConfabNet
import Logging
import NIOConcurrencyHelpers

/// Every connection the node opens: single dials (a beacon, a resync) and the loops that
/// keep dialling static peers. Each runs as a task this type holds, so `cancelAll` (when
/// the node stops) ends every one of them.
final class Dialer: Sendable {
    private struct State {
        var tasks: [UInt64: Task<Void, Never>] = [:]
        var next: UInt64 = 0
        var beaconDials = BeaconDialPolicy()
        var cancelled = false
    }

    private let sessions: SessionService
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    init(sessions: SessionService, logger: Logger) {
        self.sessions = sessions
        self.logger = logger
    }

    /// One attempt at `host:port` for `remote`.
    func dial(host: String, port: Int, remote: NodeID) {
        dial([HostPort(host: host, port: port)], remote: remote)
    }

    /// One attempt at each address in turn, until one gives a session with `remote`.
    func dial(_ addresses: [HostPort], remote: NodeID) {
        track { [sessions, logger] in
            for address in addresses where sessions.session(with: remote) == nil {
                do {
                    _ = try await sessions.dial(host: address.host, port: address.port, remote: remote)
                    return
                } catch {
                    logger.debug("dial \(remote.shortHex) at \(address) failed: \(error)")
                }
            }
        }
    }

    /// A beacon's hint: dialled only within `BeaconDialPolicy`'s limits (`known`: the
    /// person chose this peer, which gets the first turn). Returns whether a dial started;
    /// `failed` is called if it then fails.
    @discardableResult
    func dialFromBeacon(
        host: String, port: Int, remote: NodeID, known: Bool, now: ContinuousClock.Instant,
        failed: @escaping @Sendable () -> Void = {}
    ) -> Bool {
        let allowed = state.withLockedValue {
            $0.beaconDials.mayDial(remote, at: HostPort(host: host, port: port).description, known: known, now: now)
        }
        guard allowed else { return false }
        track { [sessions, logger, state] in
            var connected = false
            do {
                _ = try await sessions.dial(host: host, port: port, remote: remote)
                connected = true
            } catch {
                logger.debug("dial \(remote.shortHex) at \(host):\(port) failed: \(error)")
            }
            state.withLockedValue { $0.beaconDials.finished(remote, connected: connected, now: .now) }
            if !connected { failed() }
        }
        return true
    }

    /// Dials `target` until connected, then keeps watching, with exponential backoff.
    /// Without a key in the address, each of `candidates()` is tried in turn (the secret
    /// handshake needs the server's key); `refused` keys (blocked, or of a protocol version
    /// that does not sync with ours) are skipped, and the log says so at each turn.
    func keepDialing(
        _ target: StaticPeer, candidates: @escaping @Sendable () throws -> [NodeID],
        refused: @escaping @Sendable (NodeID) -> Bool
    ) {
        track { [sessions, logger] in
            var backoff = Backoff()
            var saidNoKeys = false
            while !Task.isCancelled {
                do {
                    let keys = try target.key.map { [$0] } ?? candidates()
                    if keys.isEmpty, !saidNoKeys {
                        saidNoKeys = true
                        logger.notice(
                            "--peer \(target) names no key and no peer you know is there to try yet: it is dialled once you add the person there (\"confab add KEY\"), or write it as KEY@\(target.address)"
                        )
                    }
                    for key in keys where sessions.session(with: key) == nil && refused(key) {
                        logger.debug("static peer \(target) as \(key.shortHex): not dialled (refused here)")
                    }
                    for key in keys where sessions.session(with: key) == nil && !refused(key) {
                        do {
                            _ = try await sessions.dial(
                                host: target.address.host, port: target.address.port, remote: key)
                            break
                        } catch {
                            logger.debug("static peer \(target) as \(key.shortHex): \(error)")
                        }
                    }
                    if keys.contains(where: { sessions.session(with: $0) != nil }) { backoff.reset() }
                } catch {
                    logger.error("static peer \(target): \(error)")
                    return
                }
                try? await Task.sleep(for: backoff.next())
            }
        }
    }

    /// Dials and dial loops under way.
    var activeCount: Int { state.withLockedValue { $0.tasks.count } }

    /// Ends every dial and dial loop; later requests are ignored.
    func cancelAll() {
        let tasks = state.withLockedValue { state in
            state.cancelled = true
            defer { state.tasks = [:] }
            return Array(state.tasks.values)
        }
        for task in tasks { task.cancel() }
    }

    private func track(_ work: @escaping @Sendable () async -> Void) {
        state.withLockedValue { state in
            guard !state.cancelled else { return }
            state.next += 1
            let id = state.next
            state.tasks[id] = Task { [weak self] in
                await work()
                self?.state.withLockedValue { _ = $0.tasks.removeValue(forKey: id) }
            }
        }
    }
}

/// How long a dial loop waits before trying again: 1 s, doubling to 30 s; back to 1 s
/// once connected.
struct Backoff {
    static let first: Duration = .seconds(1)
    static let max: Duration = .seconds(30)

    private var current = Backoff.first

    mutating func next() -> Duration {
        defer { current = Swift.min(current * 2, Self.max) }
        return current
    }

    mutating func reset() { current = Self.first }
}
