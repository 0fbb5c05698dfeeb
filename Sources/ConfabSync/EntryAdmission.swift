import ConfabModel
import ConfabWire

/// A node's policy for entries offered by peers, asked before they are validated and
/// stored (a relay's allow-list and storage quota). A refused entry is not stored and not
/// acknowledged, so its sender keeps it queued and offers it again in a later session;
/// unlike an invalid entry, it does not close the session.
public protocol EntryAdmission: AnyObject {
    /// Nil admits the entry and counts its `size` as held from now on (so the rest of a
    /// batch is judged with it); otherwise a short reason, stable for logs and metrics
    /// (`quota`, `not_allowed`). `participants` are the conversation's, from the store or,
    /// for a create entry, from the entry itself; empty when neither is known.
    func refusal(of entry: EntryPeek, size: Int, participants: [NodeID], from peer: NodeID) -> String?

    /// An admitted entry was not stored after all (a duplicate, not yet applicable, or
    /// invalid): its `size` is no longer counted.
    func notStored(_ entry: EntryPeek, size: Int)
}
