import GRDB

/// One held entry of an author's log, as a sender needs it: its bytes, its seq (a gap in
/// the seqs is an entry deleted here) and its clock sum (what authors are merged by, so
/// what an entry depends on goes first).
public struct SequencedEntry: Sendable, Equatable {
    public let seq: UInt64
    public let clockSum: UInt64
    public let raw: [UInt8]

    public init(seq: UInt64, clockSum: UInt64, raw: [UInt8]) {
        self.seq = seq
        self.clockSum = clockSum
        self.raw = raw
    }
}

extension SequencedEntry: FetchableRecord {
    public init(row: Row) {
        seq = row["seq"]
        clockSum = row["clockSum"]
        raw = row["raw"]
    }
}
