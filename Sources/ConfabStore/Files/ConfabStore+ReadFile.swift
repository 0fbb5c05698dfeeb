import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation

extension ConfabStore {
    /// A file held whole here, opened to be read in order, chunk by chunk (the web app's
    /// download), each chunk opened with the file key as it is read. Only the last chunk
    /// proves the whole: `finish` checks the SHA-256, and a reader that streams must abort
    /// what it sent when it fails (the sender damaged the file).
    public func openHeldFile(_ info: FileInfo) throws -> HeldFileReader {
        guard let (description, record) = try fileForSaving(info.fileID) else {
            throw StoreError.invalidInput("file \(info.shortID) could not be decrypted or was deleted")
        }
        guard record.isComplete else {
            throw StoreError.invalidInput("file \(info.shortID) is not here yet")
        }
        return HeldFileReader(
            store: self, id: info.fileID, name: description.name, key: SecureBytes(description.key),
            sha256: description.sha256, layout: record.layout)
    }
}

/// One read of a held file (`ConfabStore.openHeldFile`); not shared between tasks.
public final class HeldFileReader: @unchecked Sendable {
    // @unchecked: one reader is used by one task at a time, in order.
    private let store: ConfabStore
    private let id: FileID
    private let key: SecureBytes
    private let sha256: [UInt8]
    private let layout: FileLayout
    private var hasher = SHA256Hasher()
    private var next = 0
    public let name: String

    init(store: ConfabStore, id: FileID, name: String, key: SecureBytes, sha256: [UInt8], layout: FileLayout) {
        self.store = store
        self.id = id
        self.name = name
        self.key = key
        self.sha256 = sha256
        self.layout = layout
    }

    public var size: UInt64 { layout.size }

    /// The next chunk's plain bytes, or nil after the last.
    public func nextChunk() throws -> [UInt8]? {
        guard next < layout.chunkCount else { return nil }
        let sealed = try store.content.read(id, index: next, layout: layout)
        guard let plain = try? FileCipher.decryptChunk(sealed, index: next, layout: layout, key: key) else {
            throw ContentStoreError.damaged("file \(id.shortHex) was damaged by its sender (a chunk does not open)")
        }
        hasher.update(plain)
        next += 1
        return plain
    }

    /// After the last chunk: whether the whole is what its sender described.
    public func finish() throws {
        guard next == layout.chunkCount, hasher.finalize() == sha256 else {
            throw ContentStoreError.damaged(
                "file \(id.shortHex) was damaged by its sender (its SHA-256 does not match)")
        }
    }
}
