import ConfabModel
import Foundation
import GRDB

/// Every address a peer accepted a session at (an address becomes a peer's only after a
/// handshake from it succeeded, Protocol.md §11.4), newest first, a few per peer: a laptop
/// met on Ethernet, on Wi-Fi and over IPv6 is redialled at each after a restart.
extension ConfabStore {
    /// Addresses kept per peer; the least recently used give way.
    public static let maxAddressesPerPeer = 4

    /// The peer's addresses, most recently seen first.
    public func addresses(of id: NodeID) throws -> [String] {
        try read { db in
            try String.fetchAll(
                db, sql: "SELECT address FROM peer_address WHERE peerId = ? ORDER BY lastSeenAt DESC, address LIMIT ?",
                arguments: [id.bytes, Self.maxAddressesPerPeer])
        }
    }

    func rememberAddress(_ address: String, of id: NodeID, now: Date, db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO peer_address(peerId, address, lastSeenAt) VALUES (?, ?, ?)
                ON CONFLICT(peerId, address) DO UPDATE SET lastSeenAt = excluded.lastSeenAt
                """,
            arguments: [id.bytes, address, now.millisecondsSince1970])
        try db.execute(
            sql: """
                DELETE FROM peer_address WHERE peerId = ? AND address NOT IN (
                    SELECT address FROM peer_address WHERE peerId = ? ORDER BY lastSeenAt DESC, address LIMIT ?)
                """,
            arguments: [id.bytes, id.bytes, Self.maxAddressesPerPeer])
    }
}
