import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB

extension ConfabStore {
    /// Writes one message of mine, a reply to `replyTo` when given; when this returns, the
    /// message is durably stored and queued for sending. `@name`s of members become
    /// mentions (Protocol.md §4.5).
    public func sendMessage(
        _ text: String, to conversation: ConversationID, replyTo: MessageRef? = nil, now: Date = Date()
    ) throws -> Entry {
        try Self.checkText(text)
        return try write { db in
            if let replyTo { try self.requireMessage(replyTo, in: conversation, for: "reply to", db: db) }
            return try self.authorMessage(text, in: conversation, replyTo: replyTo, db: db, now: now)
        }
    }

    /// Several messages in one transaction (`send --lines` reading a fast pipe).
    public func sendMessages(_ texts: [String], to conversation: ConversationID, now: Date = Date()) throws -> [Entry] {
        for text in texts { try Self.checkText(text) }
        return try write { db in try self.authorMessages(texts, in: conversation, db: db, now: now) }
    }

    /// A run of my messages in one conversation: what every one of them shares (the key,
    /// the participants, the others' part of the clock) is read once, and the validation
    /// context is flushed once. Nothing else is written in between, so each entry's clock
    /// is the first one's with my own part moved on.
    func authorMessages(_ texts: [String], in conversation: ConversationID, db: Database, now: Date) throws -> [Entry] {
        guard texts.count > 1 else {
            return try texts.map { try authorMessage($0, in: conversation, db: db, now: now) }
        }
        let key = try sealingKey(in: conversation, db: db, now: now)
        let candidates = try mentionCandidates(in: conversation, db: db)
        var (seq, previous, clock) = try nextPosition(in: conversation, db: db)
        let context = BatchContext(store: self, now: now)
        var entries: [Entry] = []
        entries.reserveCapacity(texts.count)
        // Only some are signed; the last one's signature authenticates the rest (§4.3).
        var cadence = SigningCadence()
        for (index, text) in texts.enumerated() {
            let content = try Self.content(text, replyTo: nil, candidates: candidates)
            let sealed = try ConversationCipher.sealMessage(
                content, key: key, conversationID: conversation, author: me, seq: seq)
            let draft = EntryCodec.sign(
                EntryDraft(
                    conversationID: conversation, seq: seq, previous: previous,
                    timestamp: now.millisecondsSince1970, clock: clock, body: .message(sealed: sealed)),
                with: identity, signed: false)
            let signs = cadence.signs(size: EntryCodec.encodedSize(of: draft), last: index == texts.count - 1)
            let entry = signs ? EntryCodec.signing(draft, with: identity) : draft
            context.noteAuthored(entry.hash, content: content)
            try insertAuthored(entry, db: db, now: now, context: context)
            entries.append(entry)
            previous = entry.hash
            clock[me] = seq
            seq += 1
        }
        try finish(context, db: db)
        return entries
    }

    func authorMessage(
        _ text: String, in conversation: ConversationID, replyTo: MessageRef? = nil, db: Database, now: Date
    ) throws -> Entry {
        let key = try sealingKey(in: conversation, db: db, now: now)
        let content = try Self.content(
            text, replyTo: replyTo, candidates: try mentionCandidates(in: conversation, db: db))
        let seq = try nextSeq(conversation, db: db)
        let sealed = try ConversationCipher.sealMessage(
            content, key: key, conversationID: conversation, author: me, seq: seq)
        return try authorEntry(in: conversation, body: .message(sealed: sealed), db: db, now: now)
    }

    static func checkText(_ text: String) throws {
        // Blank when every scalar is white space: what trimming it would leave empty, found
        // at the first other scalar rather than by copying the text (run for every message
        // received).
        guard text.unicodeScalars.contains(where: { !CharacterSet.whitespacesAndNewlines.contains($0) }) else {
            throw StoreError.invalidInput("the message is empty")
        }
        guard text.utf8.count <= Limits.maxMessageTextBytes else {
            throw StoreError.invalidInput(
                "the message is \(text.utf8.count) bytes; the limit is \(Limits.maxMessageTextBytes)")
        }
    }
}
