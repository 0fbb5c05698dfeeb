import ConfabModel
import ConfabWire

/// A node's policy for entries offered by peers, asked before they are validated and
/// stored (a relay's allow-list and storage quota). A refused entry is not stored and not
/// acknowledged, so its sender keeps it queued and offers it again in a later session;
/// unlike an invalid entry, it does not close the session.
public protocol EntryAdmission: AnyObject {
    /// Nil admits the entry and counts its `size` as held from now on (so the rest of a
    /// batch is judged with it); otherwise why not. `participants` are the conversation's,
    /// from the store or, for a create entry, from the entry itself; empty when neither is
    /// known.
    func refusal(of entry: EntryPeek, size: Int, participants: [NodeID], from peer: NodeID) -> EntryRefusal?

    /// An admitted entry was not stored after all (a duplicate, not yet applicable, or
    /// invalid): its `size` is no longer counted.
    func notStored(_ entry: EntryPeek, size: Int)
}

/// Why an admission policy refused an entry; the raw value is the label logs and metrics
/// show (`confab_rejected_total{reason=…}`), stable across releases.
public enum EntryRefusal: String, Sendable, Hashable, CaseIterable {
    /// A person's node holds as much of this author as it keeps (`AuthorQuota`).
    case authorQuota = "author_quota"
    /// A relay that accepts known keys only, and no participant is known.
    case notAllowed = "not_allowed"
    /// A relay's storage quota is full.
    case quota
}
