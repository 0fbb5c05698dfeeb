import ConfabModel
import GRDB

/// Conversations only a node that reads device lists can take (Protocol.md §20.9): a
/// personal conversation (§20.15), whose create names one participant, and one a device
/// started in its person's name (§20.11), whose create names its author nowhere. A node of
/// an earlier version decodes either create as malformed and ends the session, so neither
/// is offered to it, relays included.
extension ConfabStore {
    /// Every such conversation held, anyone's.
    public func conversationsNeedingDeviceLists() throws -> Set<ConversationID> {
        try read { db in
            Set(
                try [UInt8].fetchAll(db, sql: "SELECT id FROM conversation WHERE personal = 1 OR byDevice = 1")
                    .compactMap(ConversationID.init(bytes:)))
        }
    }

    /// Whether `conversation` is one of them.
    public func needsDeviceLists(_ conversation: ConversationID) throws -> Bool {
        try readUnisolated { db in
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT personal = 1 OR byDevice = 1 FROM conversation WHERE id = ?"),
                arguments: [conversation.bytes]) ?? false
        }
    }
}
