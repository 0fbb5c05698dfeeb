import ConfabModel
import ConfabStore

/// Which files a node fetches (Protocol.md §17.3): local policy, nothing in the log
/// depends on it.
public struct FileFetchPolicy {
    /// Nothing larger is fetched, even when accepted (nor sent).
    public var maxFileSize: UInt64 = 4 << 30
    /// A relay fetches what it cannot read; a member only files whose description opened.
    public var fetchesUnreadable = false
    /// A member fetches files up to the store's automatic-download limit unless accepted;
    /// a relay takes every file (its quota decides).
    public var usesAutoDownloadLimit = true
    /// Whether there is room for this file's content (a relay's quota); nil: always.
    public var hasRoom: ((FileRecord) -> Bool)?

    public init() {}

    /// The reason a file is not fetched, or nil to fetch it.
    func refusal(_ record: FileRecord, autoLimit: UInt64) -> String? {
        if !record.readable && !fetchesUnreadable { return "unreadable" }
        if record.layout.size > maxFileSize {
            return
                "it is \(ByteSize.format(Int(clamping: record.layout.size))), above the maximum file size of \(ByteSize.format(Int(clamping: maxFileSize))) (--max-file-size)"
        }
        if usesAutoDownloadLimit, !record.accepted, record.layout.size > autoLimit { return "waiting" }
        if let hasRoom, !hasRoom(record) { return "no room" }
        return nil
    }
}
