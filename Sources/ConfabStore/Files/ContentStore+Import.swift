import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation

/// A file encrypted into the content store, ready to be sent (Protocol.md §17.1).
public struct ImportedFile: Sendable, Equatable {
    public let fileID: FileID
    public let layout: FileLayout
    public let manifest: [UInt8]
    public let key: [UInt8]
    public let sha256: [UInt8]
}

extension ContentStore {
    /// Encrypts a file into the store under a new key: read once, each chunk encrypted and
    /// named as it is read, written under a temporary name that is synced and then renamed
    /// to the file's id, so a crash never leaves a file id with half its content.
    func importPlaintext(from source: URL, maxSize: UInt64, chunkSize: Int? = nil) throws -> ImportedFile {
        let path = source.path
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw ContentStoreError.io("open", path: path, errno: errno) }
        defer { close(input) }
        var stats = stat()
        guard fstat(input, &stats) == 0 else { throw ContentStoreError.io("read", path: path, errno: errno) }
        guard stats.st_mode & S_IFMT == S_IFREG else {
            throw ContentStoreError.missing("\(path) is not a regular file")
        }
        let size = UInt64(stats.st_size)
        let chosen =
            chunkSize.map { FileLayout(size: size, chunkSize: UInt64($0)) } ?? FileLayout.forSending(size: size)
        guard size <= maxSize, let layout = chosen else {
            throw ContentStoreError.missing(
                "\(path) is \(ByteSize.format(Int(clamping: size))); the largest file this node sends is \(ByteSize.format(Int(clamping: maxSize))) (--max-file-size)"
            )
        }
        try ensureDirectory()
        let temporary = directory.appendingPathComponent(".tmp-\(UUID().uuidString)")
        let output = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw ContentStoreError.io("create", path: temporary.path, errno: errno) }
        var renamed = false
        defer {
            close(output)
            if !renamed { unlink(temporary.path) }
        }
        if layout.storedSize > 0 {
            let rc = posix_fallocate(output, 0, off_t(layout.storedSize))
            if rc == ENOSPC || rc == EDQUOT {
                throw ContentStoreError.diskFull(
                    needed: layout.storedSize, available: availableBytes() ?? 0, directory: directory.path)
            }
        }
        let key = AEAD.generateKey()
        var hasher = SHA256Hasher()
        var manifest: [UInt8] = []
        manifest.reserveCapacity(layout.manifestLength)
        for index in 0..<layout.chunkCount {
            let plain = try Self.readAll(
                input, count: layout.plainLength(of: index), at: off_t(layout.plainOffset(of: index)), path: path)
            hasher.update(plain)
            let sealed = try FileCipher.encryptChunk(plain, index: index, layout: layout, key: key)
            manifest += FileCipher.chunkName(sealed)
            try Self.writeAll(output, sealed, at: off_t(layout.storedOffset(of: index)), path: temporary.path)
        }
        guard fdatasync(output) == 0 else { throw ContentStoreError.io("sync", path: temporary.path, errno: errno) }
        let fileID = FileCipher.fileID(layout: layout, manifest: manifest)
        guard rename(temporary.path, url(of: fileID).path) == 0 else {
            throw ContentStoreError.io("rename", path: temporary.path, errno: errno)
        }
        renamed = true
        syncDirectory()
        return ImportedFile(
            fileID: fileID, layout: layout, manifest: manifest, key: key.unsafeCopy, sha256: hasher.finalize())
    }

    /// A rename is durable once its directory is synced.
    func syncDirectory() {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// Temporary files of imports a crash interrupted.
    public func removeTemporaryFiles() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasPrefix(".tmp-") { unlink(directory.appendingPathComponent(name).path) }
    }
}
