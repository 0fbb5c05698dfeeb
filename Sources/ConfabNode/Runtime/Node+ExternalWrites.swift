import ConfabModel
import ConfabStore

/// What the node last read of the store as other processes leave it (Protocol.md §13): a
/// `confab send` that found no node, a `confab peers add`, the chat attached to this node
/// saving which conversation it last opened. Other processes write all the time, nearly
/// always things only this machine cares about, so what their commits cost peers is
/// decided by what they wrote, not by the fact that they wrote.
struct ExternalWrites {
    /// SQLite's `data_version` as last read: it moves with every commit of another process.
    var counter: Int64 = 0
    /// Each conversation's highest seq of mine in the outbox, as last read. Empty at start,
    /// so that another process's first commit pushes every conversation with something in
    /// the outbox: a write that raced the node's first read of the counter is among them,
    /// and pushing what a peer was sent already sends nothing.
    var outbox: [ConversationID: UInt64] = [:]
    /// The peers worth dialling at a known address (`ConfabStore.redialCandidates`), as
    /// last read.
    var dialable: Set<NodeID> = []
    /// How many entries my own device list had, as last read: another process that links a
    /// device lengthens it, and peers must hear of the device before its entries reach them.
    var ownDeviceListCount = 0
    /// Checks since the counter itself was last read: it is read when the write-ahead log
    /// looks changed, and at least every `counterReadEvery` checks whatever it looks like.
    var checksSinceRead = 0
    static let counterReadEvery = 10

    /// The conversations whose head in the outbox is above what was read before, or new:
    /// those another process wrote entries of mine to. The node's own entries since the
    /// last read are among them too (harmless: they went to every connected peer already);
    /// entries that left the outbox (a peer holds them) only lower a head.
    static func grown(from before: [ConversationID: UInt64], to now: [ConversationID: UInt64]) -> Set<ConversationID> {
        Set(now.compactMap { conversation, seq in seq > (before[conversation] ?? 0) ? conversation : nil })
    }
}

extension Node {
    /// At start, before any tick: the counter to compare with, and the peers the start
    /// dials already.
    func startWatchingExternalWrites() throws {
        externalWrites.counter = try local.store.externalChangeCounter()
        // What this process cached before now (a chat that opened the store, then started
        // the node) may predate another process's commit.
        local.store.forgetCaches()
        externalWrites.dialable = Set(try local.store.redialCandidates().map(\.id))
        externalWrites.ownDeviceListCount = try local.store.deviceListCount(of: local.store.myPerson)
    }

    /// Every tick: when another process committed, peers hear of the conversations it wrote
    /// entries to, those only, and a peer it made worth dialling is dialled. What else it
    /// wrote (a flag, a read mark that made no receipt, the chat's last open conversation,
    /// a peer's name) concerns this machine alone: watchers are told to read again, peers
    /// are sent nothing. Re-announcing every clock to every peer here made a person
    /// moving through the attached chat cost each peer a Clocks message per conversation
    /// opened.
    func noticeExternalWrites() {
        externalWrites.checksSinceRead += 1
        guard local.store.writeAheadLogChanged() || externalWrites.checksSinceRead >= ExternalWrites.counterReadEvery
        else { return }
        externalWrites.checksSinceRead = 0
        guard let counter = try? local.store.externalChangeCounter(), counter != externalWrites.counter else {
            return
        }
        externalWrites.counter = counter
        local.store.forgetCaches()
        do { try reloadTrust() } catch { logger.error("could not read the block list: \(error)") }
        do {
            // Read after the counter: whatever commits in between is in it, and whatever
            // commits after moves the counter again.
            let outbox = try local.store.outboxHeads()
            let grown = ExternalWrites.grown(from: externalWrites.outbox, to: outbox)
            if !grown.isEmpty {
                // Among them may be a large group the other process started: the engine
                // must know it is one before it offers it.
                try refreshLargeGroups()
                apply(try engine.pushOwn(in: grown))
                reachParticipants(of: grown)
            }
            // Only once offered: after a failure, the next commit compares with the heads
            // before this one and offers these conversations then.
            externalWrites.outbox = outbox
        } catch {
            logger.error("could not offer what another process wrote: \(error)")
        }
        do {
            let count = try local.store.deviceListCount(of: local.store.myPerson)
            if count > externalWrites.ownDeviceListCount { apply(try engine.offerOwnDeviceList()) }
            externalWrites.ownDeviceListCount = count
        } catch {
            logger.error("could not offer my device list to peers: \(error)")
        }
        do {
            try dialNewlyDialable(why: "another process made it a peer to dial")
        } catch {
            logger.error("could not read the peers to dial: \(error)")
        }
        hub.emit(.changed(nil))
    }

    /// A peer made worth dialling (added by hand or verified, and met before at an address),
    /// here or by another process, is dialled now, as the start dials such peers, rather than
    /// at its next beacon: with discovery off there is none.
    func dialNewlyDialable(why: String) throws {
        let candidates = try local.store.redialCandidates()
        let before = externalWrites.dialable
        externalWrites.dialable = Set(candidates.map(\.id))
        for peer in candidates where !before.contains(peer.id) && peer.trust != .blocked {
            try dialRemembered(peer.id, why: why)
        }
    }
}
