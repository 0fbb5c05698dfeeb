import ConfabModel
import Foundation
import GRDB

/// Whether this person shares "is typing…" with others, and sees theirs (Protocol.md
/// §10.2). On by default; it stays on this machine, like the conversation flags, and a
/// running node reads it each time it would send or show one, so a change from any
/// process (`confab typing off`, Ctrl+T in the chat) counts at once.
extension ConfabStore {
    static let typingKey = "typingIndicators"

    public func typingIndicators() throws -> Bool {
        try metaValue(Self.typingKey) != "off"
    }

    /// The person's other devices take it too (Protocol.md §20.15).
    public func setTypingIndicators(_ on: Bool, now: Date = Date()) throws {
        try write { db in
            try self.storeTypingIndicators(on, db: db)
            try self.recordSetting(PersonalSetting(target: [], field: .typing, value: on ? 1 : 0)!, db: db, now: now)
        }
    }

    func storeTypingIndicators(_ on: Bool, db: Database) throws {
        try db.execute(
            sql: "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            arguments: [Self.typingKey, on ? "on" : "off"])
    }
}
