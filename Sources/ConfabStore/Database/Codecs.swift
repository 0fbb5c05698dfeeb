import ConfabModel
import Foundation
import GRDB

extension Date {
    var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension VectorClock {
    /// Clocks are kept as small JSON objects in the store: readable with the sqlite3 shell,
    /// and never on a hot path that would justify a binary form.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }

    init(json: String) throws {
        self = try JSONDecoder().decode(VectorClock.self, from: Data(json.utf8))
    }
}

extension NodeID {
    static func fetchParticipants(_ db: Database, conversation: ConversationID) throws -> [NodeID] {
        try [UInt8].fetchAll(
            db.cachedStatement(sql: "SELECT nodeId FROM participant WHERE conversationId = ? ORDER BY position"),
            arguments: [conversation.bytes]
        ).compactMap { NodeID(bytes: $0) }
    }
}

extension Row {
    func nodeID(_ column: String) -> NodeID { NodeID(bytes: self[column] as [UInt8])! }
    func conversationID(_ column: String) -> ConversationID { ConversationID(bytes: self[column] as [UInt8])! }
}

/// Keys, hashes and raw entries are byte arrays throughout Confab; they are stored as
/// BLOBs.
extension Array: @retroactive SQLExpressible where Element == UInt8 {}
extension Array: @retroactive StatementBinding where Element == UInt8 {}
extension Array: @retroactive DatabaseValueConvertible where Element == UInt8 {
    public var databaseValue: DatabaseValue { Data(self).databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> [UInt8]? {
        Data.fromDatabaseValue(dbValue).map { [UInt8]($0) }
    }
}
