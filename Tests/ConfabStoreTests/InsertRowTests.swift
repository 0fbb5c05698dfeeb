import GRDB
import Testing

@testable import ConfabStore

/// `insertRow` binds straight through SQLite's C API for the inserts every entry makes; it
/// must store exactly what GRDB's own binding stores, and fail as GRDB does.
@Suite struct InsertRowTests {
    private func table() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (k INTEGER PRIMARY KEY, b BLOB, i INTEGER, s TEXT)")
        }
        return queue
    }

    @Test func storesWhatGRDBBindingStores() throws {
        let queue = try table()
        let rows: [(Int, [UInt8]?, Int64?, String?)] = [
            (1, [0, 1, 2, 255], 0, "plain"),
            (2, [], -1, ""),
            (3, nil, Int64.max, "café 👩‍💻 日本"),
            (4, Array(repeating: 7, count: 70_000), nil, nil),
        ]
        try queue.write { db in
            for (k, b, i, s) in rows {
                try db.cachedStatement(sql: "INSERT INTO t(k, b, i, s) VALUES (?, ?, ?, ?)").insertRow([
                    .integer(k), .blob(b), i.map { .integer($0) } ?? .null, .text(s),
                ])
                try db.execute(
                    sql: "INSERT INTO t(k, b, i, s) VALUES (?, ?, ?, ?)", arguments: [k + 100, b, i, s])
            }
        }
        try queue.read { db in
            for (k, b, i, s) in rows {
                let mine = try Row.fetchOne(
                    db, sql: "SELECT b, i, s, typeof(b) AS tb FROM t WHERE k = ?", arguments: [k])!
                let grdb = try Row.fetchOne(
                    db, sql: "SELECT b, i, s, typeof(b) AS tb FROM t WHERE k = ?", arguments: [k + 100])!
                #expect(mine["tb"] as String == grdb["tb"] as String, "row \(k)")
                #expect((mine["b"] as [UInt8]?) == b)
                #expect((mine["i"] as Int64?) == i)
                #expect((mine["s"] as String?) == s)
            }
            // An empty blob is a blob of no bytes, not NULL.
            #expect(try String.fetchOne(db, sql: "SELECT typeof(b) FROM t WHERE k = 2") == "blob")
        }
    }

    @Test func aFailedInsertThrowsTheDatabaseErrorAndLeavesTheStatementUsable() throws {
        let queue = try table()
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t(k, b, i, s) VALUES (?, ?, ?, ?)")
            try insert.insertRow([.integer(1), .null, .integer(1), .text("a")])
            let error = #expect(throws: DatabaseError.self) {
                try insert.insertRow([.integer(1), .null, .integer(2), .text("b")])
            }
            #expect(error?.resultCode == .SQLITE_CONSTRAINT)
            #expect(error?.message?.contains("UNIQUE") == true)
            try insert.insertRow([.integer(2), .null, .integer(3), .text("c")])
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t") == 2)
            #expect(try String.fetchOne(db, sql: "SELECT s FROM t WHERE k = 1") == "a")
        }
    }
}
