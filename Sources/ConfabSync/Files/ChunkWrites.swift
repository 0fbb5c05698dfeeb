import ConfabModel
import ConfabStore

/// Writing checked chunks (Protocol.md §17.6): each file's chunks of a batch are written,
/// synced once, and only then recorded as held. Runs off the node's isolation — it touches
/// only the disk and the store — and its results go back to `FileExchange.written`.
public enum ChunkWrites {
    public struct Result: Sendable {
        public let file: FileID
        public let chunks: [Int]
        public let bytes: Int
        public let outcome: Swift.Result<FileRecord?, ContentStoreError>
    }

    public static func perform(_ writes: [FileOutput.ChunkWrite], in store: ConfabStore) -> [Result] {
        var order: [FileID] = []
        var byFile: [FileID: [FileOutput.ChunkWrite]] = [:]
        for write in writes {
            if byFile[write.file] == nil { order.append(write.file) }
            byFile[write.file, default: []].append(write)
        }
        return order.map { file in
            let batch = byFile[file]!
            let chunks = batch.map(\.index)
            let bytes = batch.reduce(0) { $0 + $1.data.count }
            do throws(ContentStoreError) {
                try store.content.write(batch.map { ($0.index, $0.data) }, to: file, layout: batch[0].layout)
            } catch {
                return Result(file: file, chunks: chunks, bytes: bytes, outcome: .failure(error))
            }
            do {
                return Result(
                    file: file, chunks: chunks, bytes: bytes,
                    outcome: .success(try store.recordHeld(file, chunks: chunks)))
            } catch {
                return Result(
                    file: file, chunks: chunks, bytes: bytes,
                    outcome: .failure(.recording(file, reason: "\(error)")))
            }
        }
    }
}
