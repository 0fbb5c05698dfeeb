import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    public func peers() throws -> [Peer] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM peer ORDER BY name COLLATE NOCASE, id").map(Peer.init(row:))
        }
    }

    public func peer(_ id: NodeID) throws -> Peer? {
        try writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM peer WHERE id = ?", arguments: [id.bytes]).map(Peer.init(row:))
        }
    }

    /// Adds a peer, or renames one already known. The name is what this node calls it;
    /// the search index of its conversations follows.
    public func savePeer(_ id: NodeID, name: String, now: Date = Date()) throws {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw StoreError.invalidInput("a peer needs a name") }
        guard name.utf8.count <= Limits.maxNameBytes else {
            throw StoreError.invalidInput("the name is longer than \(Limits.maxNameBytes) bytes")
        }
        guard id != me else { throw StoreError.invalidInput("that key is this node's own identity") }
        try writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO peer(id, name, addedAt) VALUES (?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET name = excluded.name
                    """,
                arguments: [id.bytes, name, now.millisecondsSince1970])
            let conversations = try [UInt8].fetchAll(
                db, sql: "SELECT conversationId FROM participant WHERE nodeId = ?", arguments: [id.bytes])
            for conversation in conversations.compactMap(ConversationID.init(bytes:)) {
                try self.refreshSearchIndex(conversation: conversation, db: db)
            }
        }
    }
}

extension Peer {
    init(row: Row) {
        self.init(
            id: row.nodeID("id"), name: row["name"], trust: Trust(rawValue: row["trust"]) ?? .unverified,
            addedAt: Date(milliseconds: row["addedAt"]),
            lastSeenAt: (row["lastSeenAt"] as Int64?).map(Date.init(milliseconds:)), address: row["address"])
    }
}
