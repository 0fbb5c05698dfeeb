import ConfabModel
import ConfabWire
import Foundation
import GRDB

/// Joining and leaving rooms (Protocol.md §18): nothing is written for others to see. A
/// room is held, or not; peers learn which rooms a node holds from its `Rooms` message.
extension ConfabStore {
    /// Joins the room: stores its create entry, made here from its name and the network key.
    /// Joining a room already held changes nothing. Returns the room's id.
    @discardableResult
    public func joinRoom(_ genesis: RoomGenesis, now: Date = Date()) throws -> ConversationID {
        let create = genesis.create
        try write { db in
            guard try !Self.holdsConversation(genesis.conversationID, db: db) else { return }
            let context = BatchContext(store: self, now: now)
            context.joining = genesis
            _ = try self.insert(create, raw: EntryCodec.encode(create), db: db, now: now, context: context)
            try db.execute(
                sql: "INSERT OR IGNORE INTO local_state(conversationId) VALUES (?)",
                arguments: [genesis.conversationID.bytes])
            try self.finish(context, db: db)
        }
        return genesis.conversationID
    }

    /// Leaves a room: everything of it goes from this machine, so it is no longer taken,
    /// offered or shown; joining again fetches what the members hold.
    public func leaveRoom(_ conversation: ConversationID) throws {
        try write { db in
            guard try Self.roomName(conversation, db: db) != nil else {
                throw StoreError.invalidInput("\(conversation.shortHex) is not a room")
            }
            try db.execute(sql: "DELETE FROM message WHERE conversationId = ?", arguments: [conversation.bytes])
            self.deletionWritten()
            for table in try Self.tablesOfConversations(db) where table != "message" {
                try db.execute(sql: "DELETE FROM \(table) WHERE conversationId = ?", arguments: [conversation.bytes])
            }
            try db.execute(sql: "DELETE FROM conversation WHERE id = ?", arguments: [conversation.bytes])
            try db.execute(sql: "INSERT INTO message_fts(message_fts) VALUES ('optimize')")
        }
        clocks.forget(conversation)
        try removeOrphanedFiles()
        scrubIfDue()
    }

    /// Every table with a `conversationId` column, read from the schema so that a table a
    /// later migration adds is not left holding a room that was left.
    static func tablesOfConversations(_ db: Database) throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c
                WHERE m.type = 'table' AND c.name = 'conversationId' ORDER BY m.name
                """)
    }

    /// The rooms this node has joined, by name.
    public func joinedRooms() throws -> [RoomName: ConversationID] {
        try readUnisolated { db in
            var rooms: [RoomName: ConversationID] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, room FROM conversation WHERE room IS NOT NULL") {
                if let name = RoomName(exactly: row["room"]) { rooms[name] = row.conversationID("id") }
            }
            return rooms
        }
    }

    /// The large groups this node holds (Protocol.md §19): like rooms, they spread along the
    /// eager tree and their clocks may name many authors; unlike rooms, they go to members.
    public func largeGroups() throws -> Set<ConversationID> {
        try readUnisolated { db in
            Set(
                try Row.fetchAll(db, sql: "SELECT id FROM conversation WHERE large != 0").map {
                    $0.conversationID("id")
                })
        }
    }

    public func isRoom(_ conversation: ConversationID) throws -> Bool {
        try readUnisolated { db in try Self.roomName(conversation, db: db) != nil }
    }

    static func roomName(_ conversation: ConversationID, db: Database) throws -> RoomName? {
        try String.fetchOne(db, sql: "SELECT room FROM conversation WHERE id = ?", arguments: [conversation.bytes])
            .flatMap(RoomName.init(exactly:))
    }

    static func isLargeGroup(_ conversation: ConversationID, db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT large FROM conversation WHERE id = ?", arguments: [conversation.bytes])
            ?? false
    }

    public func isLargeGroup(_ conversation: ConversationID) throws -> Bool {
        try readUnisolated { db in try Self.isLargeGroup(conversation, db: db) }
    }

    static func holdsConversation(_ conversation: ConversationID, db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM conversation WHERE id = ?", arguments: [conversation.bytes]) ?? false
    }
}
