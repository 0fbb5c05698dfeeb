import ConfabModel
import ConfabStore
import ConfabWire

/// Device lists in sessions (Protocol.md §20.9). A list is evidence about the person who
/// signed it and nobody else: it is read as that key's list (§20.3), whoever sends it, and
/// kept only when the store finds it extends the held one. So a peer can withhold a list,
/// never forge one or roll one back. Lists go only to peers whose Hello lists
/// `device-lists`, and only lists of persons the peer already meets here in a conversation,
/// so that none tells it whom else this node talks to.
extension SyncEngine {
    /// Lists sent to one peer in a minute: half of what a receiver takes, so that an honest
    /// sender stays within it however the two sides' minutes fall.
    public static let deviceListsSentPerMinute = 32
    /// Lists taken from one peer in a minute; the rest are dropped unread.
    public static let deviceListsReceivedPerMinute = 64

    /// What a peer is sent once its Hello says it reads lists: this node's own person's
    /// list, then the lists held of persons in a conversation both take part in, as fast as
    /// its pace lets them go (the rest at later ticks).
    func greetDeviceLists(_ peer: NodeID) throws -> [SessionMessage] {
        guard peers[peer]?.readsDeviceLists == true else { return [] }
        var persons: [NodeID] = []
        // My person's list: on a linked device, the list of the person it is a device of.
        if try store.deviceListCount(of: store.myPerson) > 0 { persons.append(store.myPerson) }
        // The list of each person that names the peer as a device: a removed device learns
        // of its removal from whoever holds the list (a relay), though it is nobody's now.
        persons += try store.deviceAuthors().persons(naming: peer)
        persons += try store.deviceListPersons(sharedWith: peer)
        queueDeviceLists(persons, for: peer)
        return try sendDeviceLists(to: peer)
    }

    /// Whether lists wait for a peer's pace.
    var waitsToSendDeviceLists: Bool {
        peers.values.contains { !$0.pendingDeviceLists.isEmpty }
    }

    /// The lists that waited, to the peers whose pace lets them go now.
    func releaseDeviceLists() throws -> SyncOutput {
        var output = SyncOutput()
        for peer in peers.keys.sorted() where peers[peer]?.pendingDeviceLists.isEmpty == false {
            output.push(try sendDeviceLists(to: peer), to: peer)
        }
        return output
    }

    /// My own list, written by another process (a link made by `confab devices link` while
    /// the node runs): to every greeted peer that reads lists, as a list taken is passed on.
    public func offerOwnDeviceList() throws -> SyncOutput {
        var output = SyncOutput()
        try passOn(store.myPerson, from: store.me, into: &output)
        try reoffer(to: try store.deviceList(of: store.myPerson), into: &output)
        return output
    }

    /// A list just stored may name a device already in session here, greeted before as a
    /// person of its own and offered only what that was: it is offered now, at once, what
    /// its person is (Protocol.md §20.11, Sharing), as a resync would.
    func reoffer(to list: DeviceList, into output: inout SyncOutput) throws {
        for peer in peers.keys.sorted() where list.listed.contains(where: { $0.key == peer }) {
            guard peers[peer]?.helloReceived == true else { continue }
            peers[peer]?.announced = [:]
            let shared = try sharedClocks(with: peer)
            output.push(announcement(shared, to: peer), to: peer)
            for conversation in shared.keys.sorted() {
                output.push(try missingEntries(conversation, for: peer, onlyMine: false), to: peer)
            }
        }
    }

    func queueDeviceLists(_ persons: [NodeID], for peer: NodeID) {
        guard var state = peers[peer] else { return }
        var waiting = Set(state.pendingDeviceLists)
        for person in persons where waiting.insert(person).inserted { state.pendingDeviceLists.append(person) }
        peers[peer] = state
    }

    /// The waiting lists the peer's pace lets go now, each as held when it goes: a list
    /// that grew meanwhile goes as it is now, one the peer holds already does not go.
    func sendDeviceLists(to peer: NodeID) throws -> [SessionMessage] {
        var messages: [SessionMessage] = []
        while let person = peers[peer]?.pendingDeviceLists.first {
            let list = try store.deviceList(of: person)
            guard let head = list.entries.last?.hash, peers[peer]?.deviceListHeads[person] != head else {
                peers[peer]?.pendingDeviceLists.removeFirst()
                continue
            }
            guard
                let message = SessionCodec.deviceListMessage(
                    person: person, entries: list.entries.map(DeviceEntryCodec.encode))
            else {
                // Sent whole or not at all: part of a list would say less than the person
                // signed, and a receiver holding more would take it for a lie.
                peers[peer]?.pendingDeviceLists.removeFirst()
                logger.warning(
                    "the device list of \(person.shortHex) (\(list.count) entries) does not fit a session message: not sent"
                )
                continue
            }
            guard peers[peer]?.sendingDeviceLists.take(at: now()) == true else { break }
            peers[peer]?.pendingDeviceLists.removeFirst()
            peers[peer]?.deviceListHeads[person] = head
            messages.append(message)
        }
        return messages
    }

    /// A list from a peer: offered to the store as `person`'s, whoever sent it. One the
    /// store takes goes on to the other peers that meet that person here; one that does not
    /// verify as `person`'s ends the session, as an invalid entry does (§12.1).
    func handleDeviceList(_ entries: [[UInt8]], of person: NodeID, from peer: NodeID) throws -> SyncOutput {
        guard peers[peer]?.helloReceived == true else { return misbehaving("device list before hello") }
        var output = SyncOutput()
        // Counted before anything is verified: verifying is what a flood would cost.
        guard peers[peer]?.receivingDeviceLists.take(at: now()) == true else {
            output.droppedDeviceLists = 1
            if peers[peer]?.deviceListFloodLogged == false {
                peers[peer]?.deviceListFloodLogged = true
                logger.warning(
                    "\(peer.shortHex) sent more than \(Self.deviceListsReceivedPerMinute) device lists in a minute: the rest are dropped"
                )
            }
            return output
        }
        do {
            guard try meets(person, from: peer) else {
                // Checked now, so that a lie ends this session whenever the person is met.
                _ = try DeviceEntryCodec.decodeList(entries, person: person)
                keepUnmet(entries, of: person, from: peer)
                return output
            }
            let held = try store.deviceListCount(of: person)
            try take(try store.offerDeviceList(entries, of: person), of: person, held: held, from: peer, into: &output)
        } catch let error as DeviceListError {
            output.misbehavior = "sent an invalid device list of \(person.shortHex): \(error)"
        }
        return output
    }

    /// Whether a list of `person` is kept here: anyone can make keys and sign lists of them,
    /// so only lists of this node's person, of the sender, and of persons in a conversation
    /// this node takes part in are, and a peer cannot fill the store with lists of nobody.
    private func meets(_ person: NodeID, from peer: NodeID) throws -> Bool {
        try person == store.myPerson || person == peer || store.sharesConversation(with: person, peer: nil)
    }

    private func keepUnmet(_ entries: [[UInt8]], of person: NodeID, from peer: NodeID) {
        guard var waiting = peers[peer]?.unmetDeviceLists else { return }
        if let kept = waiting[person], kept.count >= entries.count { return }
        waiting[person] = entries
        let bytes = waiting.values.reduce(0) { total, list in list.reduce(total) { $0 + $1.count } }
        guard waiting.count <= PeerSyncState.maxUnmetDeviceLists, bytes <= PeerSyncState.maxUnmetDeviceListBytes else {
            logger.debug("device list of \(person.shortHex) from \(peer.shortHex) dropped: a person not met here")
            return
        }
        peers[peer]?.unmetDeviceLists = waiting
    }

    /// Entries were stored or written: a conversation or a member among them may make
    /// persons met here whose lists peers sent before.
    func takeMetDeviceLists(after entries: [Entry], into output: inout SyncOutput) throws {
        guard entries.contains(where: { $0.kind == .create || $0.kind == .members }) else { return }
        for peer in peers.keys.sorted() {
            for person in (peers[peer]?.unmetDeviceLists ?? [:]).keys.sorted() {
                guard try meets(person, from: peer) else { continue }
                try takeUnmet(person, from: peer, into: &output)
            }
        }
    }

    /// A device's create (§20.11) is taken only once a list of its first participant names
    /// its author, and that person is met here only once the create is stored: the lists
    /// kept aside of the first participant of a device's create in `batch` that names this
    /// node's person (a relay: any, as it carries any) are taken before the batch is.
    func takeListsForDeviceCreates(
        _ batch: [[UInt8]], decoded: DecodedBatch?, from sender: NodeID
    ) throws
        -> SyncOutput
    {
        var output = SyncOutput()
        guard peers.values.contains(where: { !$0.unmetDeviceLists.isEmpty }) else { return output }
        for index in batch.indices {
            guard let peek = decoded?.peek(index) ?? EntryCodec.peek(batch[index]),
                let participants = peek.participants, let first = participants.first,
                !participants.contains(peek.author), role == .relay || participants.contains(store.myPerson)
            else { continue }
            for peer in [sender] + peers.keys.sorted() where peers[peer]?.unmetDeviceLists[first] != nil {
                try takeUnmet(first, from: peer, into: &output)
            }
        }
        return output
    }

    private func takeUnmet(_ person: NodeID, from peer: NodeID, into output: inout SyncOutput) throws {
        guard let list = peers[peer]?.unmetDeviceLists[person] else { return }
        peers[peer]?.unmetDeviceLists[person] = nil
        do {
            let held = try store.deviceListCount(of: person)
            try take(try store.offerDeviceList(list, of: person), of: person, held: held, from: peer, into: &output)
        } catch let error as DeviceListError {
            // It was valid when it came, and a list's validity depends on nothing held.
            logger.error("device list of \(person.shortHex) from \(peer.shortHex) refused later: \(error)")
        }
    }

    /// What the store made of a list `peer` sent; `held`: its length here before.
    private func take(
        _ offer: DeviceListOffer, of person: NodeID, held: Int, from peer: NodeID, into output: inout SyncOutput
    ) throws {
        switch offer {
        case .same:
            peers[peer]?.deviceListHeads[person] = try store.deviceList(of: person).entries.last?.hash
        case .kept:
            logger.debug("device list of \(person.shortHex) from \(peer.shortHex) is older than the one held")
        case .taken(let list):
            logger.info("device list of \(person.shortHex) from \(peer.shortHex): now \(list.count) entries")
            output.deviceListsTaken.append((person, UInt64(held + 1)...UInt64(list.count)))
            // It holds what it sent: never sent back.
            peers[peer]?.deviceListHeads[person] = list.entries.last?.hash
            try passOn(person, from: peer, into: &output)
            try reoffer(to: list, into: &output)
            if person == store.myPerson, let removal = try store.myDeviceRemoval() {
                logger.warning("\(removal.message)", metadata: ["event": "device_removed"])
            }
        case .fork(let fork):
            if loggedDeviceListForks.insert(person).inserted {
                logger.warning(
                    "\(person.shortHex) signed two device lists that differ at seq \(fork.seq) (from \(peer.shortHex)): the held one stays"
                )
            }
        }
    }

    /// A list just taken, to the other greeted peers that read lists and meet its person
    /// here (every such peer for this node's own person's list, as at a Hello).
    private func passOn(_ person: NodeID, from sender: NodeID, into output: inout SyncOutput) throws {
        for other in peers.keys.sorted() where other != sender && other != person {
            guard let state = peers[other], state.helloReceived, state.readsDeviceLists else { continue }
            guard
                try person == store.myPerson || store.sharesConversation(with: person, peer: other)
                    || store.deviceAuthors().persons(naming: other).contains(person)
            else { continue }
            queueDeviceLists([person], for: other)
            output.push(try sendDeviceLists(to: other), to: other)
        }
    }
}
