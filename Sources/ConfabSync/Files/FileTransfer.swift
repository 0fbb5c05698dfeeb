import ConfabModel
import ConfabStore

/// One file this node is fetching.
struct FileTransfer {
    var record: FileRecord
    /// Chunks neither held, asked for, nor waiting to be written.
    var queue: ChunkQueue
    /// Chunks received and checked, waiting to be written and synced.
    var writing: Set<Int> = []
    var lastProgressAt: ContinuousClock.Instant?

    init(record: FileRecord) {
        self.record = record
        queue = ChunkQueue(record.manifest == nil ? [] : record.held.missing)
    }

    var hasManifest: Bool { record.manifest != nil }
}
