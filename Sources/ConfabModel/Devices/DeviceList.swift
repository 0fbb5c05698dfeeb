/// A person's device list folded (Protocol.md §20.4): its entries seq 1…n, each checked in
/// order against what the entries before it made, and what they make: the person's
/// devices and their names, the devices removed and their cuts, the encryption key.
///
/// The entries come decoded and signature-checked by ConfabWire's `DeviceEntryCodec`,
/// which also checks each entry's fields alone (lengths, points, names, cuts); the fold
/// checks what depends on the entries before.
public struct DeviceList: Sendable, Equatable {
    /// Limits (§20.6). An encoded entry, the entries of a list, the devices listed at once
    /// (the person's own key aside) and the cuts of one removal.
    public static let maxEntryBytes = 256 * 1024
    public static let maxEntries = 256
    public static let maxListedDevices = 64
    public static let maxCuts = 4_096

    public let person: NodeID
    public private(set) var entries: [DeviceEntry] = []
    /// Added and not removed, in the order they were added.
    public private(set) var listed: [Device] = []
    /// The name a rename gave the person's own key (the first machine); nil until one does.
    public private(set) var personDeviceName: String?
    /// Every key any entry added, removed or not: none comes back.
    private var everListed: Set<NodeID> = []
    private var removals: [NodeID: DeviceRemoval] = [:]
    private var encryptionKeys: Set<[UInt8]> = []

    /// The empty list: the person's own key is its only device, and it has no encryption key.
    public init(person: NodeID) {
        self.person = person
    }

    /// Folds `entries`, seq 1 first; throws at the first entry refused.
    public init(person: NodeID, entries: [DeviceEntry]) throws(DeviceListError) {
        self.init(person: person)
        guard entries.count <= Self.maxEntries else {
            throw DeviceListError(
                .tooLarge, seq: nil, "\(entries.count) entries (limit \(Self.maxEntries))")
        }
        for entry in entries { try append(entry) }
    }

    /// Takes the next entry after checking it against the list; the list is unchanged when
    /// it throws.
    public mutating func append(_ entry: DeviceEntry) throws(DeviceListError) {
        let seq = entry.seq
        guard entries.count < Self.maxEntries else {
            throw DeviceListError(.tooLarge, seq: seq, "a list holds at most \(Self.maxEntries) entries")
        }
        guard entry.person == person else {
            throw DeviceListError(.wrongPerson, seq: seq, "signed for \(entry.person.shortHex), not \(person.shortHex)")
        }
        guard seq == UInt64(entries.count + 1) else {
            throw DeviceListError(.badSeq, seq: seq, "expected seq \(entries.count + 1)")
        }
        guard entry.previous == entries.last?.hash else {
            throw DeviceListError(.badPrevious, seq: seq, "previous hash does not name entry \(seq - 1)")
        }
        var listedAfter = listed
        var personNameAfter = personDeviceName
        switch entry.change {
        case .add(let device, let name):
            guard device != person else {
                throw DeviceListError(.deviceIsPerson, seq: seq, "the person's own key is never added")
            }
            guard !everListed.contains(device) else {
                throw DeviceListError(
                    .listedBefore, seq: seq, "\(device.shortHex) was listed before; a removed device never comes back")
            }
            guard listed.count < Self.maxListedDevices else {
                throw DeviceListError(
                    .tooLarge, seq: seq, "more than \(Self.maxListedDevices) devices listed at once")
            }
            listedAfter.append(Device(key: device, name: name, addedAt: seq))
        case .remove(let device, _):
            guard device != person else {
                throw DeviceListError(.deviceIsPerson, seq: seq, "the person's own key is never removed")
            }
            guard let index = listed.firstIndex(where: { $0.key == device }) else {
                throw DeviceListError(.notListed, seq: seq, "\(device.shortHex) is not listed")
            }
            listedAfter.remove(at: index)
            // A removed device holds the secret of every key before: the person moves to a new one.
            guard !encryptionKeys.contains(entry.keys.encryptionKey) else {
                throw DeviceListError(
                    .encryptionKeyNotNew, seq: seq, "a removal keeps an encryption key the person had before")
            }
        case .rename(let device, let name):
            // The empty list has no encryption key to keep: a list starts with an add.
            guard let last = entries.last else {
                throw DeviceListError(.renameFirst, seq: seq, "a list starts with an add, never a rename")
            }
            if device == person {
                personNameAfter = name
            } else {
                guard let index = listed.firstIndex(where: { $0.key == device }) else {
                    throw DeviceListError(.notListed, seq: seq, "\(device.shortHex) is not a device of the person")
                }
                listedAfter[index] = Device(key: device, name: name, addedAt: listed[index].addedAt)
            }
            // The device set stays, so the key does: a rename never brings back a key a
            // removed device holds, nor moves the person to a key it never announced.
            guard entry.keys.encryptionKey == last.keys.encryptionKey else {
                throw DeviceListError(
                    .encryptionKeyChanged, seq: seq, "a rename changes the encryption key of the entry before it")
            }
        }
        let expected = (1 + listedAfter.count) * DeviceKeys.wrapLength
        guard entry.keys.wraps.count == expected else {
            throw DeviceListError(
                .badWraps, seq: seq,
                "\(entry.keys.wraps.count) bytes of wraps for \(1 + listedAfter.count) devices (want \(expected))")
        }
        listed = listedAfter
        personDeviceName = personNameAfter
        switch entry.change {
        case .add(let device, _):
            everListed.insert(device)
        case .remove(let device, let cuts):
            var byConversation: [ConversationID: UInt64] = [:]
            for cut in cuts { byConversation[cut.conversation] = cut.lastSeq }
            removals[device] = DeviceRemoval(device: device, removedAt: seq, cuts: byConversation)
        case .rename:
            break
        }
        encryptionKeys.insert(entry.keys.encryptionKey)
        entries.append(entry)
    }

    /// This list with `entry` appended, or the error that refuses it.
    public func appending(_ entry: DeviceEntry) throws(DeviceListError) -> DeviceList {
        var list = self
        try list.append(entry)
        return list
    }

    /// The person's devices now: its own key first, then the listed ones in the order they
    /// were added. The wraps of the last entry follow this order.
    public var devices: [Device] { [Device(key: person, name: personDeviceName, addedAt: 0)] + listed }

    public func isDevice(_ key: NodeID) -> Bool {
        key == person || listed.contains { $0.key == key }
    }

    /// How `key` was removed, or nil when the list never removed it.
    public func removal(of key: NodeID) -> DeviceRemoval? { removals[key] }

    /// The person's X25519 encryption key now; nil while the list is empty.
    public var encryptionKey: [UInt8]? { entries.last?.keys.encryptionKey }

    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }

    /// What to do with `received`, another valid list of the same person, when this one is
    /// held (§20.7): nothing is ever merged.
    public func compare(with received: DeviceList) -> DeviceListComparison {
        for (held, other) in zip(entries, received.entries) where held.hash != other.hash {
            return .fork(DeviceListFork(person: person, seq: held.seq, held: held, received: other))
        }
        if received.count > count { return .receivedExtends }
        if received.count < count { return .heldExtends }
        return .same
    }
}

/// How a received device list stands to the one held (§20.7).
public enum DeviceListComparison: Sendable, Equatable {
    case same
    /// The held list is a prefix of the received one: take the received one.
    case receivedExtends
    /// The received list is a prefix of the held one: keep the held one.
    case heldExtends
    /// Two different entries with one seq, both signed by the person: keep the held list.
    case fork(DeviceListFork)
}

/// Two entries the person signed with one seq: the proof that its list forked.
public struct DeviceListFork: Sendable, Equatable {
    public let person: NodeID
    public let seq: UInt64
    public let held: DeviceEntry
    public let received: DeviceEntry

    public init(person: NodeID, seq: UInt64, held: DeviceEntry, received: DeviceEntry) {
        self.person = person
        self.seq = seq
        self.held = held
        self.received = received
    }
}
