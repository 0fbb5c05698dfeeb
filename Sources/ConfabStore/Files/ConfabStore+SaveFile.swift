import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation

extension ConfabStore {
    /// Writes a file held whole here out to the disk (Protocol.md §17.5 step 7, §17.7):
    /// every chunk opened with the file key, the whole checked against its SHA-256, written
    /// under a temporary name beside the destination and linked into place only when it
    /// checks — never over an existing file (`name (2).ext` instead), never through a
    /// symbolic link, never outside `destination`.
    ///
    /// `destination`: a folder (an existing one, or a path ending in `/`), under which the
    /// file goes at its safe relative path (its sent folder, then its name); or a file path.
    /// Returns where it was written.
    public func saveFile(_ info: FileInfo, to destination: URL, asFolder: Bool) throws -> URL {
        guard let (description, record) = try fileForSaving(info.fileID) else {
            throw StoreError.invalidInput(
                "file \(info.shortID) cannot be saved: it could not be decrypted or was deleted")
        }
        guard record.isComplete else {
            throw StoreError.invalidInput(
                "file \(info.shortID) is not here yet: \(ProgressBar.percent(Double(record.heldBytes) / Double(max(record.layout.size, 1)))) received"
            )
        }
        let target: URL
        if asFolder {
            var folder = destination
            for component in SafeFileName.folder(description.folder) {
                folder = folder.appendingPathComponent(component)
                try Self.makeFolder(folder)
            }
            target = folder.appendingPathComponent(SafeFileName.component(description.name))
        } else {
            target = destination
        }
        let parent = target.deletingLastPathComponent()
        let temporary = parent.appendingPathComponent(".confab-\(UUID().uuidString).part")
        let output = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw ContentStoreError.io("create", path: temporary.path, errno: errno) }
        // Once linked into place the temporary name goes; before, so does what it held.
        defer {
            close(output)
            unlink(temporary.path)
        }
        let key = SecureBytes(description.key)
        var hasher = SHA256Hasher()
        for index in 0..<record.layout.chunkCount {
            let sealed = try content.read(info.fileID, index: index, layout: record.layout)
            guard let plain = try? FileCipher.decryptChunk(sealed, index: index, layout: record.layout, key: key) else {
                throw ContentStoreError.damaged(
                    "file \(info.shortID) was damaged by its sender (a chunk does not open with its key); nothing was written"
                )
            }
            hasher.update(plain)
            try ContentStore.writeAll(
                output, plain, at: off_t(record.layout.plainOffset(of: index)), path: temporary.path)
        }
        guard hasher.finalize() == description.sha256 else {
            throw ContentStoreError.damaged(
                "file \(info.shortID) was damaged by its sender (its content does not match its SHA-256); nothing was written"
            )
        }
        guard fsync(output) == 0 else { throw ContentStoreError.io("sync", path: temporary.path, errno: errno) }
        return try Self.linkWithoutReplacing(temporary, at: target)
    }

    /// Links `temporary` at `target`, or at `name (2).ext`, `name (3).ext`… when taken:
    /// `link` fails rather than replace anything, a symbolic link included.
    private static func linkWithoutReplacing(_ temporary: URL, at target: URL) throws -> URL {
        let stem = target.deletingPathExtension().lastPathComponent
        let ext = target.pathExtension
        let parent = target.deletingLastPathComponent()
        for attempt in 1...10_000 {
            let name =
                attempt == 1 ? target.lastPathComponent : "\(stem) (\(attempt))" + (ext.isEmpty ? "" : ".\(ext)")
            let candidate = parent.appendingPathComponent(name)
            if link(temporary.path, candidate.path) == 0 { return candidate }
            guard errno == EEXIST else { throw ContentStoreError.io("write", path: candidate.path, errno: errno) }
        }
        throw StoreError.invalidInput("\(target.path) and 10,000 numbered names beside it exist already")
    }

    private static func makeFolder(_ folder: URL) throws {
        if mkdir(folder.path, 0o755) != 0, errno != EEXIST {
            throw ContentStoreError.io("create", path: folder.path, errno: errno)
        }
        try refuseLink(folder)
    }

    /// A folder named by the sender must be a folder here, not a link to somewhere else.
    private static func refuseLink(_ folder: URL) throws {
        var info = stat()
        guard lstat(folder.path, &info) == 0 else {
            throw ContentStoreError.io("open", path: folder.path, errno: errno)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw StoreError.invalidInput("\(folder.path) is not a folder (a symbolic link is not followed)")
        }
    }
}
