import ConfabModel
import ConfabWire
import Foundation
import GRDB

/// Persons' device lists (Protocol.md §20): the longest valid list each person signed that
/// reached this node, and the proofs of lists that forked. A list is checked whole before
/// anything of it is written, so a list refused leaves nothing behind.
extension ConfabStore {
    /// The list held for `person`: empty (the person's own key its only device) when none is.
    public func deviceList(of person: NodeID) throws -> DeviceList {
        try read { db in try heldDeviceList(of: person, db: db) }
    }

    /// How many entries the held list of `person` has (0: none), without reading it.
    public func deviceListCount(of person: NodeID) throws -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM device_entry WHERE person = ?", arguments: [person.bytes])
                ?? 0
        }
    }

    /// Offers a list of `person` received from anywhere (encoded entries, seq 1 first). It is
    /// decoded and folded whole first, so an invalid list throws its `DeviceListError` with
    /// nothing written; a valid one is written only when it extends the held list.
    public func offerDeviceList(_ encoded: [[UInt8]], of person: NodeID, now: Date = Date()) throws -> DeviceListOffer {
        let received = try DeviceEntryCodec.decodeList(encoded, person: person)
        return try write { db in
            let held = try heldDeviceList(of: person, db: db)
            switch held.compare(with: received) {
            case .same:
                return .same
            case .heldExtends:
                return .kept
            case .receivedExtends:
                try insertDeviceEntries(received.entries.dropFirst(held.count), db: db)
                try noteDeviceChanges(
                    received.entries.dropFirst(held.count), list: received, of: person, now: now, db: db)
                return .taken(received)
            case .fork(let fork):
                try db.cachedStatement(
                    sql: """
                        INSERT OR IGNORE INTO device_fork(person, seq, held, received, detectedAt)
                        VALUES (?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [
                    person.bytes, fork.seq, DeviceEntryCodec.encode(fork.held), DeviceEntryCodec.encode(fork.received),
                    now.millisecondsSince1970,
                ])
                return .fork(fork)
            }
        }
    }

    /// Appends an entry of this node's own list, written by its key (`DeviceListWriter`),
    /// after checking it against the held list. Returns the list with it.
    public func appendDeviceEntry(_ entry: DeviceEntry) throws -> DeviceList {
        guard entry.person == me else {
            throw StoreError.invalidInput("only \(me.shortHex)'s own device list is written here")
        }
        return try write { db in
            let list = try heldDeviceList(of: me, db: db).appending(entry)
            try insertDeviceEntries([entry], db: db)
            return list
        }
    }

    /// Adds `device` to this node's own list (starting it, with a fresh encryption key, when
    /// there is none), named `name` as §8.1 stores names.
    public func addMyDevice(_ device: NodeID, name: String, now: Date = Date()) throws -> DeviceEntry {
        try writeMyDeviceEntry { held in
            try DeviceListWriter.add(
                device, name: DisplayName.cleaned(name), to: held, person: identity,
                timestamp: now.millisecondsSince1970)
        }
    }

    /// Gives `device` (this node's own key, the first machine, or a listed one) the name
    /// `name` in this node's own list, cleaned as §8.1 stores names. The device set and the
    /// encryption key stay.
    public func renameMyDevice(_ device: NodeID, name: String, now: Date = Date()) throws -> DeviceEntry {
        try writeMyDeviceEntry { held in
            try DeviceListWriter.rename(
                device, name: DisplayName.cleaned(name), in: held, person: identity,
                timestamp: now.millisecondsSince1970)
        }
    }

    /// The entry `make` writes on this node's own list as held, stored in the same
    /// transaction that read it, so no other entry comes between.
    private func writeMyDeviceEntry(_ make: (DeviceList) throws -> DeviceEntry) throws -> DeviceEntry {
        try write { db in
            let entry = try make(try heldDeviceList(of: me, db: db))
            try insertDeviceEntries([entry], db: db)
            return entry
        }
    }

    /// Removes `device` from this node's own list, with a new encryption key for the devices
    /// that remain. Its cuts are what this node holds of its logs: per conversation, the
    /// last seq of it held here; whatever it writes later is refused. The list entry alone:
    /// `removeDevice` also rekeys the conversations, as a removal must (§20.13).
    public func removeMyDevice(_ device: NodeID, now: Date = Date()) throws -> DeviceEntry {
        try write { db in try writeDeviceRemoval(device, db: db, now: now) }
    }

    func writeDeviceRemoval(_ device: NodeID, db: Database, now: Date) throws -> DeviceEntry {
        let held = try heldDeviceList(of: me, db: db)
        let cuts = try Row.fetchAll(
            db, sql: "SELECT conversationId, seq FROM head WHERE author = ? ORDER BY conversationId",
            arguments: [device.bytes]
        ).map { DeviceCut(conversation: $0.conversationID("conversationId"), lastSeq: $0["seq"]) }
        let entry = try DeviceListWriter.remove(
            device, cuts: cuts, from: held, person: identity, timestamp: now.millisecondsSince1970)
        try insertDeviceEntries([entry], db: db)
        return entry
    }

    /// The forks recorded of `person`'s list (of every person's when nil), by person and seq.
    public func deviceListForks(of person: NodeID? = nil) throws -> [DeviceListFork] {
        try read { db in
            let rows: [Row]
            if let person {
                rows = try Row.fetchAll(
                    db, sql: "SELECT person, seq, held, received FROM device_fork WHERE person = ? ORDER BY seq",
                    arguments: [person.bytes])
            } else {
                rows = try Row.fetchAll(
                    db, sql: "SELECT person, seq, held, received FROM device_fork ORDER BY person, seq")
            }
            return try rows.map { row in
                let person = row.nodeID("person")
                return DeviceListFork(
                    person: person, seq: row["seq"],
                    held: try DeviceEntryCodec.decode(row["held"], person: person),
                    received: try DeviceEntryCodec.decode(row["received"], person: person))
            }
        }
    }

    /// The held list, decoded and folded again: rows were checked when written, and what is
    /// read back is checked as anything else is, so a damaged row is an error, not a device.
    func heldDeviceList(of person: NodeID, db: Database) throws -> DeviceList {
        let raws = try [UInt8].fetchAll(
            db.cachedStatement(sql: "SELECT raw FROM device_entry WHERE person = ? ORDER BY seq"),
            arguments: [person.bytes])
        return try DeviceEntryCodec.decodeList(raws, person: person)
    }

    /// Each entry as its content and signature were received, in the envelope as encoded here.
    /// Who keys count as changes with it (`forgetDeviceAuthorsAfterCommit`).
    private func insertDeviceEntries(_ entries: some Sequence<DeviceEntry>, db: Database) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT INTO device_entry(person, seq, raw, renames) VALUES (?, ?, ?, ?)")
        for entry in entries {
            let renames: Bool
            if case .rename = entry.change { renames = true } else { renames = false }
            try statement.execute(arguments: [entry.person.bytes, entry.seq, DeviceEntryCodec.encode(entry), renames])
        }
        try refreshDevicePersons(db: db)
        forgetDeviceAuthorsAfterCommit()
    }
}
