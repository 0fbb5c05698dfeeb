import ConfabModel
import ConfabWire
import GRDB

extension ConfabStore {
    /// Named migrations; a released migration is never edited, only followed by new ones.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("v1-meta-and-peers") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    CREATE TABLE peer (
                        id BLOB PRIMARY KEY NOT NULL CHECK (length(id) = 32),
                        name TEXT NOT NULL,
                        trust TEXT NOT NULL DEFAULT 'unverified',
                        addedAt INTEGER NOT NULL,
                        lastSeenAt INTEGER,
                        address TEXT
                    );
                    CREATE INDEX peer_name ON peer(name COLLATE NOCASE);
                    """)
        }

        migrator.registerMigration("v1-conversations-and-logs") { db in
            try db.execute(
                sql: """
                    CREATE TABLE conversation (
                        id BLOB PRIMARY KEY NOT NULL CHECK (length(id) = 16),
                        creator BLOB NOT NULL,
                        createdAt INTEGER NOT NULL,
                        -- NULL when we are not a participant (a relay) or the key did not open.
                        conversationKey BLOB,
                        title TEXT,
                        lastActivityAt INTEGER NOT NULL
                    );
                    CREATE TABLE participant (
                        conversationId BLOB NOT NULL REFERENCES conversation(id) ON DELETE CASCADE,
                        nodeId BLOB NOT NULL,
                        position INTEGER NOT NULL,
                        PRIMARY KEY (conversationId, nodeId)
                    ) WITHOUT ROWID;
                    CREATE INDEX participant_node ON participant(nodeId);
                    -- Raw signed entries, exactly as received.
                    CREATE TABLE entry (
                        conversationId BLOB NOT NULL,
                        author BLOB NOT NULL,
                        seq INTEGER NOT NULL,
                        hash BLOB NOT NULL,
                        kind INTEGER NOT NULL,
                        timestamp INTEGER NOT NULL,
                        clockSum INTEGER NOT NULL,
                        raw BLOB NOT NULL,
                        receivedAt INTEGER NOT NULL,
                        PRIMARY KEY (conversationId, author, seq)
                    ) WITHOUT ROWID;
                    -- Each author's latest entry: the conversation's vector clock. Survives the
                    -- local deletion of entries, so deleted messages are never fetched again.
                    -- `frontier` is that entry's causal clock plus the entry itself (JSON): what
                    -- its author knew, which my next entry must cover to sort after it.
                    CREATE TABLE head (
                        conversationId BLOB NOT NULL,
                        author BLOB NOT NULL,
                        seq INTEGER NOT NULL,
                        hash BLOB NOT NULL,
                        frontier TEXT NOT NULL,
                        PRIMARY KEY (conversationId, author)
                    ) WITHOUT ROWID;
                    -- Decrypted messages, for display and search.
                    CREATE TABLE message (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        conversationId BLOB NOT NULL,
                        author BLOB NOT NULL,
                        seq INTEGER NOT NULL,
                        timestamp INTEGER NOT NULL,
                        clockSum INTEGER NOT NULL,
                        text TEXT,
                        UNIQUE (conversationId, author, seq)
                    );
                    CREATE INDEX message_order ON message(conversationId, clockSum, timestamp, author, seq);
                    CREATE VIRTUAL TABLE message_fts USING fts5(
                        text, content='message', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
                    );
                    CREATE TRIGGER message_fts_insert AFTER INSERT ON message WHEN new.text IS NOT NULL BEGIN
                        INSERT INTO message_fts(rowid, text) VALUES (new.id, new.text);
                    END;
                    CREATE TRIGGER message_fts_delete AFTER DELETE ON message WHEN old.text IS NOT NULL BEGIN
                        INSERT INTO message_fts(message_fts, rowid, text) VALUES ('delete', old.id, old.text);
                    END;
                    -- Titles and participant names, rebuilt when either changes.
                    CREATE VIRTUAL TABLE conversation_fts USING fts5(
                        conversationId UNINDEXED, title, names, tokenize='unicode61 remove_diacritics 2'
                    );
                    -- Each participant's latest receipt clocks, merged (JSON objects author -> seq).
                    CREATE TABLE receipt (
                        conversationId BLOB NOT NULL,
                        nodeId BLOB NOT NULL,
                        delivered TEXT NOT NULL,
                        read TEXT NOT NULL,
                        PRIMARY KEY (conversationId, nodeId)
                    ) WITHOUT ROWID;
                    -- How far I have read each author, for unread counts.
                    CREATE TABLE read_mark (
                        conversationId BLOB NOT NULL,
                        author BLOB NOT NULL,
                        seq INTEGER NOT NULL,
                        PRIMARY KEY (conversationId, author)
                    ) WITHOUT ROWID;
                    -- Local-only state, never replicated.
                    CREATE TABLE local_state (
                        conversationId BLOB PRIMARY KEY NOT NULL,
                        archived INTEGER NOT NULL DEFAULT 0,
                        pinned INTEGER NOT NULL DEFAULT 0,
                        muted INTEGER NOT NULL DEFAULT 0,
                        markedUnread INTEGER NOT NULL DEFAULT 0,
                        deletedAt INTEGER
                    ) WITHOUT ROWID;
                    -- My entries no other node has acknowledged yet.
                    CREATE TABLE outbox (
                        conversationId BLOB NOT NULL,
                        author BLOB NOT NULL,
                        seq INTEGER NOT NULL,
                        queuedAt INTEGER NOT NULL,
                        PRIMARY KEY (conversationId, author, seq)
                    ) WITHOUT ROWID;
                    -- The clocks other nodes have announced for a conversation: what they hold.
                    CREATE TABLE peer_clock (
                        peerId BLOB NOT NULL,
                        conversationId BLOB NOT NULL,
                        clock TEXT NOT NULL,
                        updatedAt INTEGER NOT NULL,
                        PRIMARY KEY (peerId, conversationId)
                    ) WITHOUT ROWID;
                    """)
        }
        // Trust on first use: remembers the name a new key asked for when another key
        // already had it, so the possible impersonation stays flagged. Blocking hides
        // authors in every message query, hence the index.
        migrator.registerMigration("v2-peer-trust") { db in
            try db.execute(
                sql: """
                    ALTER TABLE peer ADD COLUMN claimedName TEXT;
                    CREATE INDEX peer_trust ON peer(trust);
                    """)
        }

        migrator.registerMigration("v2-relay-accounting") { db in
            // Peers added with `confab peers add` are the ones a relay run with
            // `--accept known` admits; peers merely seen on the network are not.
            try db.execute(sql: "ALTER TABLE peer ADD COLUMN addedByHand INTEGER NOT NULL DEFAULT 0")
        }

        // Names are compared by skeleton (Protocol.md §8.1), which SQLite cannot compute:
        // stored and indexed, so checking a new key's name stays one lookup however many
        // keys a peer table holds. A change to NameSkeleton needs a migration recomputing it.
        migrator.registerMigration("v3-peer-name-skeleton") { db in
            try db.execute(sql: "ALTER TABLE peer ADD COLUMN nameSkeleton TEXT NOT NULL DEFAULT ''")
            for row in try Row.fetchAll(db, sql: "SELECT id, name FROM peer") {
                try db.execute(
                    sql: "UPDATE peer SET nameSkeleton = ? WHERE id = ?",
                    arguments: [NameSkeleton.of(row["name"]), row["id"] as DatabaseValue])
            }
            try db.execute(sql: "CREATE INDEX peer_name_skeleton ON peer(nameSkeleton)")
        }

        // What a peer's lies leave behind, kept as evidence: proofs that an author forked
        // its log (its later entries are refused), how far my own log is known to reach
        // from entries I signed (so I never write at a seq I already used), and
        // conversations whose key sealed to me is not the committed one.
        migrator.registerMigration("v3-evidence") { db in
            try db.execute(
                sql: """
                    CREATE TABLE fork_proof (
                        conversationId BLOB NOT NULL,
                        author BLOB NOT NULL,
                        seq INTEGER NOT NULL,
                        first BLOB NOT NULL,
                        second BLOB NOT NULL,
                        detectedAt INTEGER NOT NULL,
                        PRIMARY KEY (conversationId, author)
                    ) WITHOUT ROWID;
                    CREATE TABLE own_log_evidence (
                        conversationId BLOB PRIMARY KEY NOT NULL,
                        seq INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    ALTER TABLE conversation ADD COLUMN keyProblem INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        // Peers' clocks were written on every acknowledgement and never read: what a peer
        // holds lives in the sync engine for the session's length, and is announced anew.
        migrator.registerMigration("v4-no-peer-clock") { db in
            try db.execute(sql: "DROP TABLE IF EXISTS peer_clock")
        }
        // Every address a peer was reached at (a laptop on Ethernet and on Wi-Fi, IPv4 and
        // IPv6), not only the last: all of them are redialled on start.
        migrator.registerMigration("v5-peer-addresses") { db in
            try db.execute(
                sql: """
                    CREATE TABLE peer_address (
                        peerId BLOB NOT NULL REFERENCES peer(id) ON DELETE CASCADE,
                        address TEXT NOT NULL,
                        lastSeenAt INTEGER NOT NULL,
                        PRIMARY KEY (peerId, address)
                    ) WITHOUT ROWID;
                    INSERT INTO peer_address(peerId, address, lastSeenAt)
                        SELECT id, address, COALESCE(lastSeenAt, addedAt) FROM peer WHERE address IS NOT NULL;
                    """)
        }
        // Edits and deletions for everyone (Protocol.md §4.5): a message's current text
        // stays in `message.text` (so lists, history and search read one row), the texts it
        // had before in `message_version`, and every node — a relay too — remembers which
        // messages their authors unsent, so an edit or a second unsend of one is refused.
        // The search index follows every change of a message's text.
        migrator.registerMigration("v6-message-actions") { db in
            try db.execute(
                sql: """
                    ALTER TABLE message ADD COLUMN editedAt INTEGER;
                    ALTER TABLE message ADD COLUMN editSeq INTEGER;
                    ALTER TABLE message ADD COLUMN deletedAt INTEGER;
                    CREATE TABLE message_version (
                        conversationId BLOB NOT NULL,
                        author BLOB NOT NULL,
                        target INTEGER NOT NULL,
                        seq INTEGER NOT NULL,
                        timestamp INTEGER NOT NULL,
                        text TEXT NOT NULL,
                        PRIMARY KEY (conversationId, author, seq)
                    ) WITHOUT ROWID;
                    CREATE INDEX message_version_target ON message_version(conversationId, author, target);
                    CREATE TABLE unsent (
                        conversationId BLOB NOT NULL,
                        author BLOB NOT NULL,
                        target INTEGER NOT NULL,
                        seq INTEGER NOT NULL,
                        PRIMARY KEY (conversationId, author, target)
                    ) WITHOUT ROWID;
                    CREATE TRIGGER message_fts_update AFTER UPDATE OF text ON message BEGIN
                        INSERT INTO message_fts(message_fts, rowid, text)
                            SELECT 'delete', old.id, old.text WHERE old.text IS NOT NULL;
                        INSERT INTO message_fts(rowid, text) SELECT new.id, new.text WHERE new.text IS NOT NULL;
                    END;
                    """)
        }
        // Replies, mentions and reactions (Protocol.md §4.5). A reply names its original by
        // author and seq, read at display time, so the quote follows every edit and deletion
        // of it and fills in once it arrives. Mentions keep the key and the range of the text
        // that names it. A reaction row is the latest entry of its reactor for that message
        // and emoji (`seq`), added or taken back, kept whether or not the message is held.
        migrator.registerMigration("v7-reactions-replies") { db in
            try db.execute(
                sql: """
                    ALTER TABLE message ADD COLUMN replyAuthor BLOB;
                    ALTER TABLE message ADD COLUMN replySeq INTEGER;
                    CREATE TABLE mention (
                        conversationId BLOB NOT NULL,
                        author BLOB NOT NULL,
                        seq INTEGER NOT NULL,
                        start INTEGER NOT NULL,
                        length INTEGER NOT NULL,
                        person BLOB NOT NULL,
                        PRIMARY KEY (conversationId, author, seq, start)
                    ) WITHOUT ROWID;
                    CREATE INDEX mention_person ON mention(conversationId, person);
                    CREATE TABLE reaction (
                        conversationId BLOB NOT NULL,
                        targetAuthor BLOB NOT NULL,
                        targetSeq INTEGER NOT NULL,
                        reactor BLOB NOT NULL,
                        emoji TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        timestamp INTEGER NOT NULL,
                        removed INTEGER NOT NULL,
                        PRIMARY KEY (conversationId, targetAuthor, targetSeq, reactor, emoji)
                    ) WITHOUT ROWID;
                    CREATE INDEX reaction_entry ON reaction(conversationId, reactor, seq);
                    """)
        }
        // Membership changes and key epochs (Protocol.md §4.8). `membership_event` holds what
        // the fold needs of every create and members entry (keys as concatenated 32-byte
        // blobs, `recipients` NULL for a leave), so membership is computed without decoding
        // entries; `participant` stays the current members, `former_member` the keys
        // removed, each with the frontier of its removal (what it may still be sent);
        // `epoch_key` the keys of the epochs this node can read.
        migrator.registerMigration("v8-membership") { db in
            try db.execute(
                sql: """
                    CREATE TABLE membership_event (
                        conversationId BLOB NOT NULL,
                        author BLOB NOT NULL,
                        seq INTEGER NOT NULL,
                        clockSum INTEGER NOT NULL,
                        timestamp INTEGER NOT NULL,
                        added BLOB NOT NULL,
                        removed BLOB NOT NULL,
                        recipients BLOB,
                        frontier TEXT NOT NULL,
                        PRIMARY KEY (conversationId, author, seq)
                    ) WITHOUT ROWID;
                    CREATE TABLE former_member (
                        conversationId BLOB NOT NULL,
                        nodeId BLOB NOT NULL,
                        cap TEXT NOT NULL,
                        PRIMARY KEY (conversationId, nodeId)
                    ) WITHOUT ROWID;
                    CREATE INDEX former_member_node ON former_member(nodeId);
                    CREATE TABLE epoch_key (
                        conversationId BLOB NOT NULL,
                        author BLOB NOT NULL,
                        seq INTEGER NOT NULL,
                        key BLOB NOT NULL,
                        PRIMARY KEY (conversationId, author, seq)
                    ) WITHOUT ROWID;
                    """)
            try backfillMembership(db)
        }
        // Files (Protocol.md §17): a file's content is stored once per file id (`file`,
        // with which chunks are held and synced), whatever number of file entries name it
        // (`file_message`, one per entry, with what a member opened of its description).
        // Relays keep `file_message` rows without a description: they serve a file only to
        // peers that should have a conversation naming it.
        migrator.registerMigration("v9-files") { db in
            try db.execute(
                sql: """
                    CREATE TABLE file (
                        id BLOB PRIMARY KEY NOT NULL CHECK (length(id) = 32),
                        size INTEGER NOT NULL,
                        chunkSize INTEGER NOT NULL,
                        manifest BLOB,
                        held BLOB NOT NULL DEFAULT x'',
                        heldCount INTEGER NOT NULL DEFAULT 0,
                        complete INTEGER NOT NULL DEFAULT 0,
                        accepted INTEGER NOT NULL DEFAULT 0,
                        addedAt INTEGER NOT NULL,
                        completedAt INTEGER,
                        problem TEXT
                    ) WITHOUT ROWID;
                    CREATE TABLE file_message (
                        conversationId BLOB NOT NULL,
                        author BLOB NOT NULL,
                        seq INTEGER NOT NULL,
                        fileId BLOB NOT NULL,
                        name TEXT,
                        folder TEXT,
                        mediaType TEXT,
                        fileKey BLOB,
                        sha256 BLOB,
                        width INTEGER NOT NULL DEFAULT 0,
                        height INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (conversationId, author, seq)
                    ) WITHOUT ROWID;
                    CREATE INDEX file_message_file ON file_message(fileId);
                    """)
        }
        // Messages enter the search index once per commit, not row by row (`indexNewMessages`):
        // FTS5 writes its pending words out as a new segment at every statement savepoint,
        // and a trigger on each insert made one segment per message, merged again and again
        // (a third of the time a batch of received entries took to store). Rows above
        // `upTo` are not indexed yet: a removal or an edit of one leaves the index alone, as
        // the commit's indexing reads their text as it is then.
        migrator.registerMigration("v10-search-index-per-commit") { db in
            try db.execute(
                sql: """
                    CREATE TABLE message_fts_indexed (upTo INTEGER NOT NULL);
                    INSERT INTO message_fts_indexed(upTo) SELECT coalesce(max(id), 0) FROM message;
                    DROP TRIGGER message_fts_insert;
                    DROP TRIGGER message_fts_delete;
                    DROP TRIGGER message_fts_update;
                    CREATE TRIGGER message_fts_delete AFTER DELETE ON message
                    WHEN old.text IS NOT NULL AND old.id <= (SELECT upTo FROM message_fts_indexed) BEGIN
                        INSERT INTO message_fts(message_fts, rowid, text) VALUES ('delete', old.id, old.text);
                    END;
                    CREATE TRIGGER message_fts_update AFTER UPDATE OF text ON message
                    WHEN old.id <= (SELECT upTo FROM message_fts_indexed) BEGIN
                        INSERT INTO message_fts(message_fts, rowid, text)
                            SELECT 'delete', old.id, old.text WHERE old.text IS NOT NULL;
                        INSERT INTO message_fts(rowid, text) SELECT new.id, new.text WHERE new.text IS NOT NULL;
                    END;
                    """)
        }
        // Builds of this repository before this migration decoded no protocol 1 create
        // (Protocol.md §4.9), so `v8-membership` left their conversations without members:
        // listed, but nobody could write in them.
        migrator.registerMigration("v11-protocol-1-members") { db in
            try backfillMembership(db)
        }
        // Rooms (Protocol.md §18): a conversation whose create is a room's carries its name.
        migrator.registerMigration("v12-rooms") { db in
            try db.execute(sql: "ALTER TABLE conversation ADD COLUMN room TEXT")
        }
        // Large groups (Protocol.md §19): a conversation is one from its create on.
        migrator.registerMigration("v13-large-groups") { db in
            try db.execute(sql: "ALTER TABLE conversation ADD COLUMN large INTEGER NOT NULL DEFAULT 0")
        }
        // Device lists (Protocol.md §20): each person's held list, one row per entry as
        // received, and the proofs of lists that forked (two entries of one seq).
        migrator.registerMigration("v14-device-lists") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device_entry (
                        person BLOB NOT NULL CHECK (length(person) = 32),
                        seq INTEGER NOT NULL CHECK (seq >= 1),
                        raw BLOB NOT NULL,
                        PRIMARY KEY (person, seq)
                    ) WITHOUT ROWID;
                    CREATE TABLE device_fork (
                        person BLOB NOT NULL CHECK (length(person) = 32),
                        seq INTEGER NOT NULL,
                        held BLOB NOT NULL,
                        received BLOB NOT NULL,
                        detectedAt INTEGER NOT NULL,
                        PRIMARY KEY (person, seq)
                    ) WITHOUT ROWID;
                    """)
        }
        // Whose a message is when its author key is a listed device (Protocol.md §20.11):
        // NULL for the author itself. Kept on the row, so that what SQL filters and counts
        // (hidden by a removal, unread) asks the person, and set again when a list changes.
        migrator.registerMigration("v15-message-person") { db in
            try db.execute(sql: "ALTER TABLE message ADD COLUMN person BLOB")
        }
        // The system lines of a member's device list changing (Protocol.md §20): this node's
        // own, placed in each conversation with the person after what it held when the list
        // came (clockSum and time of then), so they sort with the messages; and what a
        // verified peer's list was when verified.
        migrator.registerMigration("v16-device-notices") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device_notice (
                        conversationId BLOB NOT NULL,
                        person BLOB NOT NULL,
                        listSeq INTEGER NOT NULL,
                        change TEXT NOT NULL,
                        device BLOB NOT NULL,
                        name TEXT NOT NULL,
                        clockSum INTEGER NOT NULL,
                        timestamp INTEGER NOT NULL,
                        PRIMARY KEY (conversationId, person, listSeq)
                    ) WITHOUT ROWID;
                    -- How long the peer's device list was when my person verified them: a
                    -- longer list since is a device linked or removed, shown as a key change is.
                    ALTER TABLE peer ADD COLUMN verifiedListLength INTEGER;
                    """)
        }
        // A person's personal conversation (Protocol.md §20.15), listed nowhere, and the
        // settings its entries carry: per target and field, the value of the change last in
        // (timestamp, author, seq) order.
        migrator.registerMigration("v17-personal-settings") { db in
            try db.execute(
                sql: """
                    ALTER TABLE conversation ADD COLUMN personal INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE personal_setting (
                        target BLOB NOT NULL,
                        field INTEGER NOT NULL,
                        value INTEGER NOT NULL,
                        timestamp INTEGER NOT NULL,
                        author BLOB NOT NULL,
                        seq INTEGER NOT NULL,
                        PRIMARY KEY (target, field)
                    ) WITHOUT ROWID;
                    """)
        }
        // A rename's line says the name before it too ("laptop → work laptop"): NULL for the
        // other changes, and for the first machine, which had no name of its own before. A
        // list entry that only renames (1) leaves the devices a verified peer was verified
        // with as they were, so it raises no warning; no list held before has one.
        migrator.registerMigration("v18-device-renames") { db in
            try db.execute(
                sql: """
                    ALTER TABLE device_notice ADD COLUMN previousName TEXT;
                    ALTER TABLE device_entry ADD COLUMN renames INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        // A conversation a device started in its person's name (Protocol.md §20.11): a node
        // of an earlier version would end the session on its create, so it is offered none.
        // No store made before this holds one.
        migrator.registerMigration("v19-device-creates") { db in
            try db.execute(sql: "ALTER TABLE conversation ADD COLUMN byDevice INTEGER NOT NULL DEFAULT 0")
        }
        // A name setting's name (field 8, Protocol.md §20.15), kept with the value in force so
        // that a change of mine found older than it is undone to it, as other fields are.
        migrator.registerMigration("v20-setting-names") { db in
            try db.execute(sql: "ALTER TABLE personal_setting ADD COLUMN name TEXT")
        }
        return migrator
    }
}
