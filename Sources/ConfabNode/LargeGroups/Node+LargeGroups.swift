import ConfabModel
import ConfabSync

/// Large groups (Protocol.md §19.6): the engine spreads them along the eager tree and shares
/// them only with peers that read them, so it must know which conversations held here are
/// large before it offers them to anyone. A conversation is large from its create on: the
/// list changes only when a conversation comes to be held here (or goes), so it is read
/// again then, not on every write.
extension Node {
    /// Reads the large groups held and tells the engine of a change: a group newly held
    /// starts its links with the peers it is shared with, and is announced to them.
    func refreshLargeGroups() throws {
        let groups = try local.store.largeGroups()
        guard groups != largeGroups else { return }
        largeGroups = groups
        apply(try engine.holdLargeGroups(groups))
    }

    /// Entries written here or received may hold a conversation this node did not hold
    /// (its create): before the engine offers anything of it, the list is read again.
    func refreshLargeGroups(ifCreating entries: [Entry]) {
        guard entries.contains(where: { $0.kind == .create }) else { return }
        do { try refreshLargeGroups() } catch { logger.error("could not read the large groups held: \(error)") }
    }
}
