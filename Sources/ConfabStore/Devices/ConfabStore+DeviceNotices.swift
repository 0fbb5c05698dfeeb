import ConfabModel
import Foundation
import GRDB

/// The system lines that tell a conversation a member linked, removed or renamed a device
/// (issue 33: never silent). They are this node's own: written when a list that extends the
/// held one is stored, in the same write, one per new entry and conversation the person is
/// in, placed after everything the conversation held then.
extension ConfabStore {
    /// In the write that stores `entries` of `person`'s list (`list` is the list after them).
    /// My own person's devices are mine to know (`confab devices`), not a line of my chats.
    func noteDeviceChanges(
        _ entries: some Sequence<DeviceEntry>, list: DeviceList, of person: NodeID, now: Date, db: Database
    ) throws {
        guard person != me, person != myPerson else { return }
        let conversations = try [UInt8].fetchAll(
            db.cachedStatement(sql: "SELECT conversationId FROM participant WHERE nodeId = ?"),
            arguments: [person.bytes])
        guard !conversations.isEmpty else { return }
        let notes = Self.deviceNotes(of: Set(entries.map(\.seq)), in: list)
        let insert = try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO device_notice(conversationId, person, listSeq, change, device, name, previousName, clockSum, timestamp)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for conversation in conversations {
            // After the last entry held in display order, even one dated ahead of this clock.
            let last = try Row.fetchOne(
                db.cachedStatement(
                    sql:
                        "SELECT clockSum, timestamp FROM entry WHERE conversationId = ? ORDER BY clockSum DESC, timestamp DESC LIMIT 1"
                ),
                arguments: [conversation])
            let clockSum: Int64 = last?["clockSum"] ?? 0
            let timestamp = max(now.millisecondsSince1970, (last?["timestamp"] ?? 0) + 1)
            for note in notes {
                try insert.execute(arguments: [
                    conversation, person.bytes, note.listSeq, note.change.rawValue, note.device.bytes, note.deviceName,
                    note.previousName, clockSum, timestamp,
                ])
            }
        }
    }

    /// What the entries `seqs` of `list` tell, each with the names as they stood at it: a
    /// removed device by its last name, a renamed one by the names before and after.
    static func deviceNotes(of seqs: Set<UInt64>, in list: DeviceList) -> [DeviceNote] {
        var names: [NodeID: String] = [:]
        var notes: [DeviceNote] = []
        for entry in list.entries {
            let device = entry.change.device
            let note: (change: DeviceNote.Change, name: String, previous: String?)
            switch entry.change {
            case .add(_, let name):
                note = (.linked, name, nil)
                names[device] = name
            case .remove:
                note = (.removed, names[device] ?? device.shortHex, nil)
            case .rename(_, let name):
                note = (.renamed, name, names[device])
                names[device] = name
            }
            guard seqs.contains(entry.seq) else { continue }
            notes.append(
                DeviceNote(
                    person: list.person, listSeq: entry.seq, change: note.change, device: device,
                    deviceName: note.name, previousName: note.previous))
        }
        return notes
    }

    /// The device lines of `person`'s list entries `listSeqs`, in every conversation: what a
    /// node tells its front ends when a list is taken.
    public func deviceLines(of person: NodeID, listSeqs: ClosedRange<UInt64>) throws -> [ChatMessage] {
        try read { db in
            let conversations = try [UInt8].fetchAll(
                db,
                sql: "SELECT DISTINCT conversationId FROM device_notice WHERE person = ? AND listSeq BETWEEN ? AND ?",
                arguments: [person.bytes, listSeqs.lowerBound, listSeqs.upperBound]
            ).compactMap(ConversationID.init(bytes:))
            return try conversations.flatMap { conversation in
                try self.deviceLines(
                    conversation, after: nil, before: nil, names: self.nameMap(conversation: conversation, db: db),
                    db: db
                ).filter { $0.device?.person == person && listSeqs.contains($0.device?.listSeq ?? 0) }
            }
        }
    }

    /// The device lines of a conversation between `after` and `before` (each when given).
    func deviceLines(
        _ conversation: ConversationID, after: DisplayOrderKey?, before: DisplayOrderKey?, names: [NodeID: String],
        db: Database
    ) throws -> [ChatMessage] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM device_notice WHERE conversationId = ?"),
            arguments: [conversation.bytes]
        ).compactMap { row in
            let person = row.nodeID("person")
            let device = row.nodeID("device")
            let timestamp: Int64 = row["timestamp"]
            // Author the device and seq 0, which no entry has: the line never stands for an
            // entry of the person or the device (edits, receipts and replies name those).
            let key = DisplayOrderKey(clockSum: row["clockSum"], timestamp: timestamp, author: device, seq: 0)
            if let after, key <= after { return nil }
            if let before, key >= before { return nil }
            guard let change = DeviceNote.Change(rawValue: row["change"]) else { return nil }
            var line = ChatMessage(
                conversationID: conversation, author: device, authorName: names[person] ?? person.shortHex, seq: 0,
                isMine: false, text: nil, sentAt: Date(milliseconds: timestamp), orderKey: key, status: nil)
            line.device = DeviceNote(
                person: person, listSeq: row["listSeq"], change: change, device: device, deviceName: row["name"],
                previousName: row["previousName"])
            return line
        }
    }
}
