/// Hard limits on everything that is decoded from the network or disk. Protocol.md lists
/// the same numbers; a value over a limit is rejected before any further work.
public enum Limits {
    /// Encoded signed entry (content + signature + framing).
    public static let maxEntryBytes = 64 * 1024
    /// Entries an author may leave unsigned in a row, and their encoded bytes, before a
    /// signed one (Protocol.md §4.3): a run and the signed entry that vouches for it always
    /// fit in one `Entries` message, however a window cuts the log.
    public static let maxUnsignedRun = 63
    public static let maxUnsignedRunBytes = 192 * 1024
    /// UTF-8 bytes of one message's text.
    public static let maxMessageTextBytes = 32 * 1024
    /// UTF-8 bytes of a conversation title.
    public static let maxTitleBytes = 256
    /// Participants of one conversation (creator included).
    public static let maxParticipants = 64
    /// The largest conversation whose members write delivered and read receipts and say
    /// they are typing (Protocol.md §12.4, §10.2). Every receipt is an entry that goes to
    /// every member, so receipts in a group of n members cost n² deliveries per burst; past
    /// this size "sent" is as far as a message's status goes.
    public static let maxParticipantsWithReceipts = 32
    /// Members of a large group at a time (Protocol.md §19): each is wrapped a fresh key in
    /// 32 bytes, so a removal's wraps stay within half an entry.
    public static let maxLargeGroupMembers = 1024
    /// Participants of a large group's create, and keys added or removed by one members
    /// entry: each takes about 70 bytes of the entry (key and wrap). More join by adds.
    public static let maxLargeGroupChange = 512
    /// Authors an epoch entry of a large group's creator may name beyond the few others any
    /// entry may (Protocol.md §19.5): the keys it removes and the members whose leaves it saw.
    public static let maxLargeGroupClockExtra = 512
    /// Authors in one vector clock; a clock only ever names participants.
    public static let maxClockWidth = maxParticipants
    /// Authors a room's clock may name in a session (Protocol.md §18.3): a room has no
    /// member list, anyone on the network may write in it.
    public static let maxRoomAuthors = 4096
    /// Other authors a room entry's causal clock names besides its own log and the room's
    /// create (Protocol.md §18.2): a few of the latest it saw, whatever the room's size.
    public static let maxRoomClockOthers = 8
    /// Display names chosen by people.
    public static let maxNameBytes = 64
    /// Highest seq in a log or a clock. Far beyond any real log, and low enough that a clock
    /// sum (at most `maxClockWidth` seqs) stays inside SQLite's signed 64-bit integers.
    public static let maxSeq: UInt64 = 1 << 48
    /// Entry timestamps: from the Unix epoch to 3000-01-01T00:00:00Z, so every date formats
    /// and sorts sensibly; within that an author's clock is its own (display order uses it
    /// only to break ties, and the list caps it, Protocol.md §6).
    public static let timestampRange: ClosedRange<Int64> = 0...32_503_680_000_000
    /// UTF-8 bytes of one reaction's emoji (one grapheme cluster: the longest emoji
    /// sequences, flags of subdivisions and families with skin tones, take about 35).
    public static let maxReactionBytes = 64
    /// Emoji one person may have on one message at a time; more are ignored, by every node
    /// alike (only the reactor's own entries decide it, in its log order).
    public static let maxReactionsPerReactor = 8
    /// Mentions one message may carry; more are ignored.
    public static let maxMentions = 64
    /// Encoded `MessagePlaintext` (text, reply, mentions): the text limit and 64 bytes, so
    /// a sealed message stays within the limit earlier versions check (Protocol.md §4.6). A
    /// reply or mentions take from the text's room.
    public static let maxMessagePlaintextBytes = maxMessageTextBytes + 64
}
