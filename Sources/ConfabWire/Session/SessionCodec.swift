import ConfabModel
import Foundation
import SwiftProtobuf

/// Encodes and decodes session messages with hard limits. A session's byte stream (inside
/// box-stream) is a sequence of `length (u32 big-endian) ‖ SessionMessage` units; framing
/// lives with the network handlers, this type handles one unit's payload.
public enum SessionCodec {
    /// Protocol 2: conversation ids derived from their creator's key (Protocol.md §2, §4.9).
    public static let protocolVersion: UInt32 = 2
    /// Protocol 1 (Confab 0.1.0) nodes are still synced with, in part (Protocol.md §12.1).
    public static let oldestProtocolVersion: UInt32 = 1
    /// What this implementation says it understands in its Hello (Protocol.md §10.2).
    public static let features = [
        requestsFeature, partialClocksFeature, roomsFeature, largeGroupsFeature, deviceListsFeature,
    ]
    /// The peer tells a request for entries from an acknowledgement: only `Clocks` with
    /// `request` set are answered with other authors' entries (Protocol.md §12.5).
    public static let requestsFeature = "requests"
    /// The peer reads partial clocks: after the first clock of a conversation in a session,
    /// its announcements and acknowledgements name only the authors that moved, so what a
    /// clock costs follows what changed, not the group's size (Protocol.md §10.2).
    public static let partialClocksFeature = "partial-clocks"
    /// The peer takes part in rooms: it reads `Rooms` messages and clocks of rooms, which
    /// may name up to `Limits.maxRoomAuthors` authors (Protocol.md §18.4).
    public static let roomsFeature = "rooms"
    /// The peer reads large groups (Protocol.md §19): their creates and members entries with
    /// key wraps, and their clocks of up to `Limits.maxRoomAuthors` authors. A peer without
    /// it is offered nothing of one.
    public static let largeGroupsFeature = "large-groups"
    /// The peer reads `DeviceList` messages (Protocol.md §20.9): only such a peer is sent
    /// one, so an older node never receives a kind it would only skip.
    public static let deviceListsFeature = "device-lists"
    /// Rooms one `Rooms` message may name.
    public static let maxRooms = 64
    /// Largest encoded SessionMessage: enough for a batch of entries, small enough that a
    /// hostile peer cannot make a node buffer much.
    public static let maxMessageBytes = 1024 * 1024
    public static let maxEntriesPerMessage = 512
    public static let maxClocksPerMessage = 4096
    public static let maxFeatures = 32
    public static let maxFeatureBytes = 64
    /// Chunk indices one FileWant may name (Protocol.md §17.4).
    public static let maxChunksPerWant = 256
    /// A FileHave bitmap: one bit per chunk of the largest file.
    public static let maxHaveBytes = FileLayout.maxChunks / 8

    /// A `Bye` reason's limit, in bytes of UTF-8 (Protocol.md §10.7).
    public static let maxByeReasonBytes = 256

    /// A reason within `maxByeReasonBytes`: a longer one is cut, not refused, at the last
    /// character (extended grapheme cluster) boundary that fits — or, when not even the
    /// first character fits (one base with thousands of combining marks), at the last
    /// Unicode scalar that does. Never inside a UTF-8 sequence.
    public static func byeReason(_ reason: String) -> String {
        guard reason.utf8.count > maxByeReasonBytes else { return reason }
        var bytes = 0
        var end = reason.startIndex
        for index in reason.indices {
            let next = reason.index(after: index)
            bytes += reason.utf8.distance(from: index, to: next)
            guard bytes <= maxByeReasonBytes else { break }
            end = next
        }
        if end > reason.startIndex { return String(reason[..<end]) }
        var scalars = String.UnicodeScalarView()
        bytes = 0
        for scalar in reason.unicodeScalars {
            bytes += UTF8.width(scalar)
            guard bytes <= maxByeReasonBytes else { break }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    public static func encode(_ message: SessionMessage) -> [UInt8] {
        var wire = Confab_V1_SessionMessage()
        switch message {
        case .hello(let hello):
            var h = Confab_V1_Hello()
            h.version = hello.version
            h.oldestVersion = hello.oldestVersion
            h.features = hello.features
            h.displayName = hello.displayName
            h.role = hello.role == .relay ? .relay : .person
            h.listenPort = UInt32(hello.listenPort)
            wire.hello = h
        case .clocks(let clocks):
            var c = Confab_V1_Clocks()
            c.conversations = clocks.map(wireClock)
            wire.clocks = c
        case .request(let clocks):
            var c = Confab_V1_Clocks()
            c.conversations = clocks.map(wireClock)
            c.request = true
            wire.clocks = c
        case .entries(let entries):
            var e = Confab_V1_Entries()
            e.entries = entries.map { Data($0) }
            wire.entries = e
        case .want(let want):
            var w = Confab_V1_Want()
            w.conversationID = Data(want.conversation.bytes)
            w.author = Data(want.author.bytes)
            w.after = want.after
            wire.want = w
        case .ping(let nonce):
            var p = Confab_V1_Ping()
            p.nonce = nonce
            wire.ping = p
        case .pong(let nonce):
            var p = Confab_V1_Pong()
            p.nonce = nonce
            wire.pong = p
        case .bye(let reason):
            var b = Confab_V1_Bye()
            b.reason = byeReason(reason.rawValue)
            wire.bye = b
        case .forkProof(let first, let second):
            var f = Confab_V1_ForkProof()
            f.first = Data(first)
            f.second = Data(second)
            wire.forkProof = f
        case .typing(let typing):
            var t = Confab_V1_Typing()
            t.conversationID = Data(typing.conversation.bytes)
            t.active = typing.active
            wire.typing = t
        case .rooms(let names):
            var r = Confab_V1_Rooms()
            r.names = names.map(\.text)
            wire.rooms = r
        case .prune(let rooms):
            var p = Confab_V1_Prune()
            p.conversationIds = rooms.map { Data($0.bytes) }
            wire.prune = p
        case .deviceList(let person, let entries):
            var d = Confab_V1_DeviceList()
            d.person = Data(person.bytes)
            d.entries = entries.map { Data($0) }
            wire.deviceList = d
        case .fileWant(let want):
            var w = Confab_V1_FileWant()
            w.fileID = Data(want.file.bytes)
            w.manifest = want.manifest
            w.chunks = want.chunks.map { UInt32($0) }
            wire.fileWant = w
        case .fileManifest(let file, let manifest):
            var m = Confab_V1_FileManifest()
            m.fileID = Data(file.bytes)
            m.manifest = Data(manifest)
            wire.fileManifest = m
        case .fileChunk(let file, let index, let data):
            var c = Confab_V1_FileChunk()
            c.fileID = Data(file.bytes)
            c.index = UInt32(index)
            c.data = Data(data)
            wire.fileChunk = c
        case .fileHave(let have):
            var h = Confab_V1_FileHave()
            h.fileID = Data(have.file.bytes)
            h.manifest = have.manifest
            h.chunks = Data(have.chunks)
            wire.fileHave = h
        }
        return try! wire.serializedBytes()
    }

    /// Splits entries, in order, into Entries messages of at most `maxCount` entries each,
    /// every one of which encodes within `maxMessageBytes`: entries of up to 64 KiB would
    /// otherwise make a message of a few hundred of them too large to send.
    public static func entriesMessages(_ entries: [[UInt8]], maxCount: Int = maxEntriesPerMessage) -> [SessionMessage] {
        batches(entries, maxCount: maxCount, length: \.count).map { .entries($0) }
    }

    /// A `DeviceList` message of `person`'s list, or nil when the list does not fit one
    /// session message: a list may hold 256 entries of 256 KiB, a message 1 MiB, and a list
    /// is sent whole or not at all (Protocol.md §10.7, §20.9).
    public static func deviceListMessage(person: NodeID, entries: [[UInt8]]) -> SessionMessage? {
        guard entries.count <= DeviceList.maxEntries,
            entries.allSatisfy({ $0.count <= DeviceList.maxEntryBytes })
        else { return nil }
        // The list's fields, then the SessionMessage field around them.
        let body = entries.reduce(2 + NodeID.length) { $0 + entryCost($1.count) }
        guard 1 + varintLength(body) + body <= maxMessageBytes else { return nil }
        return .deviceList(person: person, entries: entries)
    }

    /// What one entry of `bytes` adds to an Entries message, and what all of them may add:
    /// for a sender that cuts its messages itself.
    public static func entryCost(_ bytes: Int) -> Int { 1 + varintLength(bytes) + bytes }
    public static let entriesBudget = maxMessageBytes - 4

    /// Splits conversation clocks, in order, into Clocks messages of at most
    /// `maxClocksPerMessage` conversations each, every one of which encodes within
    /// `maxMessageBytes` (a clock of 64 authors takes about 2.9 KB). No clocks at all make
    /// one empty Clocks message. `request`: each asks for what the sender lacks (§12.5).
    public static func clocksMessages(
        _ clocks: [SessionMessage.ConversationClock], request: Bool = false
    ) -> [SessionMessage] {
        let batches = batches(clocks, maxCount: maxClocksPerMessage) { item in
            (try? wireClock(item).serializedBytes() as [UInt8])?.count ?? 0
        }
        let message: ([SessionMessage.ConversationClock]) -> SessionMessage =
            request ? { .request($0) } : { .clocks($0) }
        return batches.isEmpty ? [message([])] : batches.map(message)
    }

    /// Items in order, cut into runs of at most `maxCount` whose encoding as one repeated
    /// field fits a message: each item costs its tag, its length's varint and its bytes, and
    /// 4 bytes are left for the SessionMessage field around them.
    private static func batches<Item>(_ items: [Item], maxCount: Int, length: (Item) -> Int) -> [[Item]] {
        let budget = entriesBudget
        var batches: [[Item]] = []
        var batch: [Item] = []
        var size = 0
        for item in items {
            let bytes = length(item)
            let cost = 1 + varintLength(bytes) + bytes
            if !batch.isEmpty, batch.count >= maxCount || size + cost > budget {
                batches.append(batch)
                batch = []
                size = 0
            }
            batch.append(item)
            size += cost
        }
        if !batch.isEmpty { batches.append(batch) }
        return batches
    }

    private static func wireClock(_ item: SessionMessage.ConversationClock) -> Confab_V1_ConversationClock {
        var conversation = Confab_V1_ConversationClock()
        conversation.conversationID = Data(item.conversation.bytes)
        conversation.clock = EntryCodec.encodeClock(item.clock)
        conversation.partial = item.partial
        return conversation
    }

    private static func varintLength(_ value: Int) -> Int {
        var length = 1
        var rest = value >> 7
        while rest > 0 {
            length += 1
            rest >>= 7
        }
        return length
    }

    /// Decodes one message. Returns nil for a message of a kind this version does not know
    /// (the session skips it); throws for anything malformed or over a limit.
    public static func decode(_ bytes: some Collection<UInt8>) throws(WireError) -> SessionMessage? {
        guard bytes.count <= maxMessageBytes else {
            throw .tooLarge("session message", limit: maxMessageBytes, actual: bytes.count)
        }
        let wire: Confab_V1_SessionMessage
        do {
            wire = try Confab_V1_SessionMessage(serializedBytes: Array(bytes), options: EntryCodec.decodingOptions)
        } catch {
            throw .malformed("session message")
        }
        switch wire.kind {
        case .hello(let h):
            guard h.features.count <= maxFeatures, h.features.allSatisfy({ $0.utf8.count <= maxFeatureBytes }) else {
                throw .tooLarge("hello features", limit: maxFeatures, actual: h.features.count)
            }
            guard h.displayName.utf8.count <= Limits.maxNameBytes else {
                throw .tooLarge("display name", limit: Limits.maxNameBytes, actual: h.displayName.utf8.count)
            }
            guard h.listenPort <= UInt32(UInt16.max) else { throw .malformed("listen port \(h.listenPort)") }
            return .hello(
                .init(
                    version: h.version, oldestVersion: max(h.oldestVersion, 1), features: h.features,
                    displayName: h.displayName,
                    role: h.role == .relay ? .relay : .person, listenPort: UInt16(h.listenPort)))
        case .clocks(let c):
            guard c.conversations.count <= maxClocksPerMessage else {
                throw .tooLarge("clocks message", limit: maxClocksPerMessage, actual: c.conversations.count)
            }
            var clocks: [SessionMessage.ConversationClock] = []
            clocks.reserveCapacity(c.conversations.count)
            for item in c.conversations {
                guard let id = ConversationID(bytes: item.conversationID) else { throw .malformed("conversation id") }
                // A request asks for everything beyond its clocks: a partial one would ask
                // for what the sender holds (Protocol.md §10.2).
                guard !(c.request && item.partial) else { throw .malformed("partial clock in a request") }
                clocks.append(
                    .init(
                        conversation: id,
                        clock: try EntryCodec.decodeClock(item.clock, what: "clock", limit: Limits.maxRoomAuthors),
                        partial: item.partial))
            }
            return c.request ? .request(clocks) : .clocks(clocks)
        case .entries(let e):
            guard e.entries.count <= maxEntriesPerMessage else {
                throw .tooLarge("entries message", limit: maxEntriesPerMessage, actual: e.entries.count)
            }
            for entry in e.entries where entry.count > Limits.maxEntryBytes {
                throw .tooLarge("entry", limit: Limits.maxEntryBytes, actual: entry.count)
            }
            return .entries(e.entries.map { [UInt8]($0) })
        case .want(let w):
            guard let id = ConversationID(bytes: w.conversationID) else { throw .malformed("conversation id") }
            guard let author = NodeID(bytes: w.author) else { throw .malformed("author key") }
            guard w.after <= Limits.maxSeq else { throw .malformed("seq above the limit") }
            return .want(.init(conversation: id, author: author, after: w.after))
        case .ping(let p):
            return .ping(p.nonce)
        case .pong(let p):
            return .pong(p.nonce)
        case .bye(let b):
            return .bye(ByeReason(byeReason(b.reason)))
        case .forkProof(let f):
            // Each half is an entry, with an entry's limit; verification is the store's.
            for half in [f.first, f.second] where half.count > Limits.maxEntryBytes {
                throw .tooLarge("fork proof entry", limit: Limits.maxEntryBytes, actual: half.count)
            }
            return .forkProof(first: [UInt8](f.first), second: [UInt8](f.second))
        case .typing(let t):
            guard let id = ConversationID(bytes: t.conversationID) else { throw .malformed("conversation id") }
            return .typing(.init(conversation: id, active: t.active))
        case .rooms(let r):
            guard r.names.count <= maxRooms else {
                throw .tooLarge("rooms message", limit: maxRooms, actual: r.names.count)
            }
            var names: [RoomName] = []
            for text in r.names {
                guard let name = RoomName(exactly: text) else { throw .malformed("room name") }
                names.append(name)
            }
            guard Set(names).count == names.count else { throw .malformed("rooms message names a room twice") }
            return .rooms(names.sorted())
        case .prune(let p):
            guard p.conversationIds.count <= maxRooms else {
                throw .tooLarge("prune message", limit: maxRooms, actual: p.conversationIds.count)
            }
            var rooms: [ConversationID] = []
            for bytes in p.conversationIds {
                guard let id = ConversationID(bytes: bytes) else { throw .malformed("conversation id") }
                rooms.append(id)
            }
            guard Set(rooms).count == rooms.count else { throw .malformed("prune message names a room twice") }
            return .prune(rooms.sorted())
        case .deviceList(let d):
            // Counted and measured before anything is read of them; what the entries say is
            // the store's to check, against the person named here (§20.3).
            guard d.entries.count <= DeviceList.maxEntries else {
                throw .tooLarge("device list", limit: DeviceList.maxEntries, actual: d.entries.count)
            }
            for entry in d.entries where entry.count > DeviceList.maxEntryBytes {
                throw .tooLarge("device list entry", limit: DeviceList.maxEntryBytes, actual: entry.count)
            }
            guard let person = NodeID(bytes: d.person) else { throw .malformed("device list person") }
            return .deviceList(person: person, entries: d.entries.map { [UInt8]($0) })
        case .fileWant(let w):
            guard w.chunks.count <= maxChunksPerWant else {
                throw .tooLarge("file want", limit: maxChunksPerWant, actual: w.chunks.count)
            }
            guard w.chunks.allSatisfy({ $0 < FileLayout.maxChunks }) else { throw .malformed("chunk index") }
            return .fileWant(.init(file: try fileID(w.fileID), manifest: w.manifest, chunks: w.chunks.map { Int($0) }))
        case .fileManifest(let m):
            let limit = FileLayout.maxChunks * FileLayout.chunkNameLength
            guard m.manifest.count <= limit else {
                throw .tooLarge("file manifest", limit: limit, actual: m.manifest.count)
            }
            guard m.manifest.count % FileLayout.chunkNameLength == 0 else { throw .malformed("file manifest length") }
            return .fileManifest(file: try fileID(m.fileID), manifest: [UInt8](m.manifest))
        case .fileChunk(let c):
            let limit = FileLayout.maxChunkSize + FileLayout.tagLength
            guard c.data.count <= limit else { throw .tooLarge("file chunk", limit: limit, actual: c.data.count) }
            guard c.index < FileLayout.maxChunks else { throw .malformed("chunk index") }
            return .fileChunk(file: try fileID(c.fileID), index: Int(c.index), data: [UInt8](c.data))
        case .fileHave(let h):
            guard h.chunks.count <= maxHaveBytes else {
                throw .tooLarge("file have bitmap", limit: maxHaveBytes, actual: h.chunks.count)
            }
            return .fileHave(.init(file: try fileID(h.fileID), manifest: h.manifest, chunks: [UInt8](h.chunks)))
        case .none:
            return nil
        }
    }

    private static func fileID(_ bytes: Data) throws(WireError) -> FileID {
        guard let id = FileID(bytes: bytes) else { throw .malformed("file id") }
        return id
    }
}
