/// Hard limits on everything that is decoded from the network or disk. Protocol.md lists
/// the same numbers; a value over a limit is rejected before any further work.
public enum Limits {
    /// Encoded signed entry (content + signature + framing).
    public static let maxEntryBytes = 64 * 1024
    /// UTF-8 bytes of one message's text.
    public static let maxMessageTextBytes = 32 * 1024
    /// UTF-8 bytes of a conversation title.
    public static let maxTitleBytes = 256
    /// Participants of one conversation (creator included).
    public static let maxParticipants = 64
    /// Authors in one vector clock; a clock only ever names participants.
    public static let maxClockWidth = maxParticipants
    /// Display names chosen by people.
    public static let maxNameBytes = 64
    /// Highest seq in a log or a clock. Far beyond any real log, and low enough that a clock
    /// sum (at most `maxClockWidth` seqs) stays inside SQLite's signed 64-bit integers.
    public static let maxSeq: UInt64 = 1 << 48
}
