import ConfabModel
import ConfabWire

/// Two entries signed by one author that cannot both be in its log (Protocol.md §7.1).
public struct ForkProof: Sendable, Equatable {
    public let conversation: ConversationID
    public let author: NodeID
    /// The seq at which the log splits.
    public let seq: UInt64
    public let first: [UInt8]
    public let second: [UInt8]

    public init(conversation: ConversationID, author: NodeID, seq: UInt64, first: [UInt8], second: [UInt8]) {
        self.conversation = conversation
        self.author = author
        self.seq = seq
        self.first = first
        self.second = second
    }

    /// Checks a proof from untrusted bytes: both entries decode and verify, share their
    /// conversation and author, and either hold one seq with different content or follow
    /// each other with a previous hash that is not the first's.
    public static func verify(first: [UInt8], second: [UInt8]) -> ForkProof? {
        guard let a = try? EntryCodec.decode(first), let b = try? EntryCodec.decode(second),
            a.conversationID == b.conversationID, a.author == b.author
        else { return nil }
        if a.seq == b.seq, a.hash != b.hash {
            return ForkProof(conversation: a.conversationID, author: a.author, seq: a.seq, first: first, second: second)
        }
        if b.seq == a.seq + 1, b.previous != a.hash {
            return ForkProof(conversation: a.conversationID, author: a.author, seq: a.seq, first: first, second: second)
        }
        return nil
    }
}
