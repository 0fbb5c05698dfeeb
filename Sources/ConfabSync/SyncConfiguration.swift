import ConfabModel
import ConfabWire
import Foundation

/// How an engine replicates, decided when it is made: its role, its batches and windows,
/// whom it trusts as a relay, how fast it takes each author, how long it waits before
/// asking for what it lacks, and its clocks.
public struct SyncConfiguration: Sendable {
    public var role: NodeRole
    /// Entries per Entries message, and per `Want` answer and release of entries held for
    /// their author's rate. A message still takes a whole run of entries left unsigned
    /// (64, Protocol.md §4.3) when this is set lower.
    public var batchSize = 256
    /// Entries per author that may be in flight (sent, not yet acknowledged) to one peer.
    public var window = 1024
    /// Bytes of entries that may be in flight to one peer, pushed or in answer to Want:
    /// what a peer that reads slowly, or not at all, makes this node buffer for it. An
    /// entry larger than the window goes when nothing else is in flight.
    public var byteWindow = 2 << 20
    /// Whether a peer that says it is a relay is trusted as one (offered every
    /// conversation held). A claim in Hello alone gets nothing (Protocol.md §14.1).
    public var trustsRelay: @Sendable (NodeID) -> Bool = { _ in false }
    /// How fast this node takes each other author's new entries (a person's node); over it,
    /// they wait aside until the author's budget refills. Nil: no limit (a relay limits
    /// each peer's rate instead, Protocol.md §14.5).
    public var authorRateLimit: AuthorRateLimit?
    /// How long what a peer's clock shows this node lacking may take to arrive before it is
    /// asked for: long enough for the author's push or an answer already on its way.
    public var graftDelay: Duration = .milliseconds(500)
    /// How long entries lacked here whose author has a session with this node wait for its
    /// push before another holder is asked for them: counted from when the lack began or
    /// from the author's last push stored here, whichever is later. A busy node (50 nodes
    /// on 2 cores) can still have the author's push in its socket or inbox when the graft
    /// delay is over, and another holder's answer to a request made then is a second copy.
    public var authorPushWait: Duration = .seconds(3)
    /// Bytes of entries this node received and has not handled yet (in its inbox): while
    /// more than `backlogAllowance` wait, what it lacks is most likely among them, and a
    /// request made now brings a second copy (Protocol.md §12.5). Nodes pass their count;
    /// 0 by default.
    public var backlog: @Sendable () -> Int = { 0 }
    public static let backlogAllowance = 64 * 1024
    /// The engine's clock, for pacing receipts and rates; tests pass a virtual one.
    public var now: @Sendable () -> ContinuousClock.Instant = { .now }
    /// When this node started, by the wall clock: what authors wrote before is history,
    /// never held back for their rate.
    public var startedAt = Date()
    /// The wall clock, against which entries' timestamps are judged new or history.
    public var wallClock: @Sendable () -> Date = { Date() }

    public init(role: NodeRole) {
        self.role = role
    }
}
