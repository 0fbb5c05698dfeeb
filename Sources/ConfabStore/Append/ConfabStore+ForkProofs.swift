import ConfabModel
import ConfabWire
import Foundation
import GRDB

/// Fork proofs: two entries one author signed that cannot both be in its log. Once a
/// node holds one, that author's log in that conversation stops growing here, and the
/// proof goes to every peer that shares the conversation (Protocol.md §7.1).
extension ConfabStore {
    /// Keeps a proof received from a peer, after checking it. Returns the proof when it is
    /// new here and concerns a conversation held here (so it is worth passing on).
    public func recordForkProof(first: [UInt8], second: [UInt8], now: Date = Date()) throws -> ForkProof? {
        guard let proof = ForkProof.verify(first: first, second: second) else { return nil }
        return try write { db in
            guard
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT 1 FROM conversation WHERE id = ?"),
                    arguments: [proof.conversation.bytes]) != nil,
                try NodeID.fetchParticipants(db, conversation: proof.conversation).contains(proof.author)
            else { return nil }
            return try insertForkProof(proof, db: db, now: now) ? proof : nil
        }
    }

    /// The proofs held for conversations in `conversations` (all when nil).
    public func forkProofs(in conversations: Set<ConversationID>? = nil) throws -> [ForkProof] {
        // Asked at every Hello: the statement is prepared once per connection, and the two
        // entries of a proof are copied out only for the conversations asked about.
        try read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT conversationId, author, seq, first, second FROM fork_proof")
            ).compactMap { row in
                let conversation = row.conversationID("conversationId")
                guard conversations?.contains(conversation) ?? true else { return nil }
                return ForkProof(
                    conversation: conversation, author: row.nodeID("author"), seq: row["seq"],
                    first: row["first"], second: row["second"])
            }
        }
    }

    /// Authors of a conversation proven to have forked their log, with the seq of the split.
    public func forkedAuthors(in conversation: ConversationID) throws -> [(author: NodeID, seq: UInt64)] {
        try read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT author, seq FROM fork_proof WHERE conversationId = ? ORDER BY author"),
                arguments: [conversation.bytes]
            ).map { (author: $0.nodeID("author"), seq: $0["seq"]) }
        }
    }

    /// The proof a held entry and a received one that contradicts it make, when it is new
    /// here and anyone can check it. Either entry may have been taken on the strength of a
    /// later entry's signature (Protocol.md §7 step 3) and carry a bad one of its own; a
    /// proof others could not check is neither kept nor passed on (§7.1).
    func forkProof(
        held: [UInt8]?, received: [UInt8], entry: Entry, db: Database, context: BatchContext
    ) throws -> ForkProof? {
        guard let held, try !context.forkedAuthors(entry.conversationID, db: db).contains(entry.author) else {
            return nil
        }
        return ForkProof.verify(first: held, second: received)
    }

    /// Returns whether the proof was new.
    func insertForkProof(_ proof: ForkProof, db: Database, now: Date) throws -> Bool {
        try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO fork_proof(conversationId, author, seq, first, second, detectedAt)
                VALUES (?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            proof.conversation.bytes, proof.author.bytes, proof.seq, proof.first, proof.second,
            now.millisecondsSince1970,
        ])
        return db.changesCount > 0
    }
}
