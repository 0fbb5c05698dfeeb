import GRDB

// @testable for the store's database connection, which is reset between inputs (run.sh
// builds the fuzzers with -enable-testing, which testable imports need).
@testable import ConfabStore

/// The store every input of a session fuzzer starts from. What one input makes the code
/// under test write is undone before the next by copying a snapshot of the store as it was
/// made back over it with SQLite's backup API (when the input changed a row), so a saved
/// input replays exactly as it ran; making, migrating and filling a store per input would
/// cost far more than the input itself.
public final class StoreSnapshot: @unchecked Sendable {
    // @unchecked: libFuzzer runs one input at a time, on one thread.
    public let store: ConfabStore
    private let pristine: DatabaseQueue
    /// SQLite's count of rows changed on the store's connection when it last equalled the
    /// snapshot.
    private var changesWhenPristine: Int?

    public init(_ store: ConfabStore) {
        self.store = store
        pristine = try! DatabaseQueue()
        try! store.writer.backup(to: pristine)
    }

    /// Copies the snapshot back over the store's database, connection to connection, if
    /// the previous input changed any row. Most inputs write nothing, and a copy costs more
    /// than the page copy itself: the schema changes under the connection, which then
    /// re-reads it and re-prepares its cached statements.
    public func restore() {
        try! store.writer.writeWithoutTransaction { db in
            guard db.totalChangesCount != changesWhenPristine else { return }
            try pristine.inDatabase { snapshot in try snapshot.backup(to: db) }
            changesWhenPristine = db.totalChangesCount
        }
    }
}
