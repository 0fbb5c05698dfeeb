import ConfabModel
import ConfabWire

/// What the file exchange knows of one connected peer, for one session.
struct FilePeerState {
    /// What the peer said it holds of a file (its latest FileHave); absent: nothing known,
    /// so it may be asked.
    struct Holding {
        var manifest: Bool
        var chunks: ChunkSet?
    }

    var helloReceived = false
    var holdings: [FileID: Holding] = [:]
    /// Chunks asked of this peer and not received yet, and when they were asked.
    var asked: [FileID: [Int: ContinuousClock.Instant]] = [:]
    var askedBytes = 0
    var arrivals = ChunkArrivals()
    /// Files whose manifest was asked of this peer, and when.
    var askedManifest: [FileID: ContinuousClock.Instant] = [:]
    /// Files this peer asked this node for, or this node asked it for: it is told when this
    /// node comes to hold more of them.
    var interested: Set<FileID> = []
    var haveDue: Set<FileID> = []
    var haveSentAt: [FileID: ContinuousClock.Instant] = [:]
    /// Whether a conversation naming the file is one this peer should have: decided once
    /// per file and session.
    var served: [FileID: Bool] = [:]
    var badChunks = 0

    func mayHold(_ file: FileID, chunk: Int) -> Bool {
        guard let holding = holdings[file] else { return true }
        return holding.chunks?.contains(chunk) ?? false
    }

    func mayHoldManifest(_ file: FileID) -> Bool {
        holdings[file]?.manifest ?? true
    }
}
