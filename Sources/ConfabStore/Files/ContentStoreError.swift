import ConfabModel
import Foundation

/// A file's content could not be read or written. Messages say what happened and what to do.
public struct ContentStoreError: Error, Equatable, CustomStringConvertible {
    private enum Reason: Equatable {
        case diskFull(needed: UInt64, available: UInt64, directory: String)
        case io(String, path: String, errno: Int32)
        case missing(String)
        case damaged(String)
        case recording(String, reason: String)
    }

    private let reason: Reason

    static func diskFull(needed: UInt64, available: UInt64, directory: String) -> ContentStoreError {
        ContentStoreError(reason: .diskFull(needed: needed, available: available, directory: directory))
    }

    static func io(_ operation: String, path: String, errno: Int32) -> ContentStoreError {
        if errno == ENOSPC || errno == EDQUOT {
            return ContentStoreError(reason: .diskFull(needed: 0, available: 0, directory: path))
        }
        return ContentStoreError(reason: .io(operation, path: path, errno: errno))
    }

    static func missing(_ what: String) -> ContentStoreError { ContentStoreError(reason: .missing(what)) }
    static func damaged(_ what: String) -> ContentStoreError { ContentStoreError(reason: .damaged(what)) }

    /// Chunks were written but the store could not record them: they are fetched again.
    public static func recording(_ file: FileID, reason: String) -> ContentStoreError {
        ContentStoreError(reason: .recording(file.shortHex, reason: reason))
    }

    /// The disk (or the user's quota on it) has no room: nothing was lost, the transfer
    /// waits for room.
    public var isDiskFull: Bool {
        if case .diskFull = reason { return true }
        return false
    }

    public var description: String {
        switch reason {
        case .diskFull(let needed, let available, let directory):
            let need =
                needed > 0
                ? ": the file needs \(Self.size(needed)), \(Self.size(available)) are free" : ""
            return "the disk holding \(directory) is full\(need) — free some space; "
                + "what was received so far is kept and the transfer goes on from there"
        case .io(let operation, let path, let code):
            return "could not \(operation) \(path): \(String(cString: strerror(code)))"
        case .missing(let what):
            return what
        case .damaged(let what):
            return what
        case .recording(let file, let reason):
            return "could not record chunks of file \(file): \(reason)"
        }
    }

    static func size(_ bytes: UInt64) -> String { ByteSize.format(Int(clamping: bytes)) }
}
