import ConfabModel
import ConfabWire
import Testing

@testable import ConfabNode

/// While entries wait in the node's inbox, the engine asks no holder for what it lacks
/// (Protocol.md §12.5); the count it reads must be of entries only, and must come back to
/// zero once they are handled.
@Suite struct EntriesBacklogTests {
    @Test func onlyEntriesCountAndHandlingThemEmptiesTheBacklog() throws {
        let backlog = EntriesBacklog()
        let entries = SessionMessage.entries([
            [UInt8](repeating: 1, count: 40_000), [UInt8](repeating: 2, count: 30_000),
        ])
        let file = try #require(FileID(bytes: [UInt8](repeating: 7, count: 32)))
        let chunk = SessionMessage.fileChunk(file: file, index: 0, data: [UInt8](repeating: 3, count: 1 << 20))
        backlog.delivered(chunk)
        #expect(backlog.bytes == 0)
        backlog.delivered(entries)
        #expect(backlog.bytes == 70_000)
        backlog.delivered(entries)
        backlog.handled(entries)
        backlog.handled(chunk)
        #expect(backlog.bytes == 70_000)
        backlog.handled(entries)
        #expect(backlog.bytes == 0)
    }
}
