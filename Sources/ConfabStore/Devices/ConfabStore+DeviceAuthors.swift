import ConfabModel
import ConfabWire
import GRDB

/// Whose an entry is (Protocol.md §20.11): its author key's person, from the device lists
/// held here. Every rule and every view that asks who wrote an entry asks this.
extension ConfabStore {
    /// The person this store writes as: its identity, or for a linked device the person it
    /// was linked to (Protocol.md §20.10), read when the store opens and set by `takeLink`.
    public var myPerson: NodeID { linkedPersonKey.withLock { $0 } ?? me }

    /// The keys whose entries are mine: my person's devices as my held list names them (my
    /// own key alone while there is no list).
    public func myDevices() throws -> Set<NodeID> {
        try read { db in try myDevices(db: db) }
    }

    func myDevices(db: Database) throws -> Set<NodeID> {
        Set(try deviceAuthors(db: db).devices(of: myPerson)).union([me])
    }

    /// Who keys count as, from the lists held (`DeviceAuthorsCache`).
    public func deviceAuthors() throws -> DeviceAuthors {
        try read { db in try deviceAuthors(db: db) }
    }

    func deviceAuthors(db: Database) throws -> DeviceAuthors {
        let (generation, cached) = deviceAuthorsCache.cached()
        if let cached { return cached }
        let authors = try Self.foldDeviceAuthors(db: db)
        deviceAuthorsCache.keep(authors, generation: generation)
        return authors
    }

    /// Every list held, read and folded again (checked as anything read back is).
    static func foldDeviceAuthors(db: Database) throws -> DeviceAuthors {
        var lists: [DeviceList] = []
        var person: NodeID?
        var raws: [[UInt8]] = []
        func fold() throws {
            if let person { lists.append(try DeviceEntryCodec.decodeList(raws, person: person)) }
        }
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT person, raw FROM device_entry ORDER BY person, seq"))
        {
            let rowPerson = row.nodeID("person")
            if rowPerson != person {
                try fold()
                person = rowPerson
                raws = []
            }
            raws.append(row["raw"])
        }
        try fold()
        return DeviceAuthors(lists: lists)
    }

    /// The person `entry` counts as in a conversation whose membership log is `log` (nil for
    /// the create, which names the first members itself).
    func person(of entry: Entry, log: MembershipLog?, authors: DeviceAuthors) -> NodeID {
        guard !authors.isEmpty else { return entry.author }
        let members: Set<NodeID>? =
            if let log { log.isOpen ? nil : log.everMembers } else { [] }
        return authors.person(of: entry.author, in: entry.conversationID, seq: entry.seq, members: members)
    }

    /// After a list is written: who keys count as changed, and so did the membership logs
    /// folded with it.
    func forgetDeviceAuthorsAfterCommit() {
        commits.afterCommit { [deviceAuthorsCache, membershipLogs] in
            deviceAuthorsCache.forget()
            membershipLogs.removeAll()
        }
    }
}

extension ConfabStore {
    /// How a key of my own person is named among peers: a listed device by the name my
    /// person's list gives it, the person key (seen from a linked device) by my display name;
    /// nil for any other key.
    func ownDeviceLabel(_ id: NodeID, db: Database) throws -> String? {
        guard id != me else { return nil }
        if id == myPerson {
            return try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'displayName'") ?? id.shortHex
        }
        let list = try heldDeviceList(of: myPerson, db: db)
        return list.listed.first { $0.key == id }?.name
    }
}
