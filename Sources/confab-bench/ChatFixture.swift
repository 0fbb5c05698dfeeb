import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNode
import ConfabStore
import ConfabWire
import Foundation

/// A data directory as a heavy user's would be after months: `conversations` threads with
/// twenty people, half the messages theirs (signed by them, verified on the way in), some
/// unread, some titled, activity spread over the last 60 days. `long` adds one more thread,
/// the newest, of that many messages (the web app's benchmark opens it).
enum ChatFixture {
    /// The long thread's title, by which a benchmark finds its row.
    static let longTitle = "Long thread"

    static func make(at url: URL, conversations: Int, perConversation: Int, long: Int = 0) throws -> Profile {
        let me = try Profile.initialize(DataDirectory(url: url), name: "bench")
        let people = try (0..<20).map { index in
            let keys = SigningKeyPair.generate()
            let store = try ConfabStore.inMemory(identity: keys)
            try me.store.savePeer(NodeID(keys.publicKey), name: "person\(index)")
            return store
        }
        let now = Date()
        let mine = perConversation / 2
        let theirs = perConversation - mine
        for index in 0..<conversations {
            let other = people[index % people.count]
            let start = now.addingTimeInterval(
                -Double(conversations - index) * 60 * 60 * 24 * 60 / Double(conversations))
            let (id, _) = try me.store.createConversation(
                with: [other.me], title: index % 10 == 0 ? "Topic \(index)" : nil, now: start)
            try deliver(try me.store.entries(in: id, author: me.me, after: 0, limit: 10), to: other)
            _ = try me.store.sendMessages(
                (0..<mine).map { "my message \($0) in thread \(index), about the weekend plans" }, to: id,
                now: start.addingTimeInterval(1))
            _ = try other.sendMessages(
                (0..<theirs).map { "their answer \($0) in thread \(index): sounds good, see you there" }, to: id,
                now: start.addingTimeInterval(2))
            try deliver(try other.entries(in: id, author: other.me, after: 0, limit: theirs + 10), to: me.store)
            // Most threads were read; the newest tenth were not.
            if index < conversations * 9 / 10 { _ = try me.store.markRead(id, now: start.addingTimeInterval(3)) }
        }
        if long > 0 { try addLongThread(to: me, with: people[0], messages: long, now: now) }
        return me
    }

    /// A thread of `messages` messages over the last day, the two writing in turns of 50
    /// (each turn delivered to the other), all read: the newest conversation in the list.
    private static func addLongThread(to me: Profile, with other: ConfabStore, messages: Int, now: Date) throws {
        let turns = max(1, messages / 100)
        let start = now.addingTimeInterval(-24 * 60 * 60)
        let (id, _) = try me.store.createConversation(with: [other.me], title: longTitle, now: start)
        try deliver(try me.store.entries(in: id, author: me.me, after: 0, limit: 10), to: other)
        var written = 0
        for turn in 0..<turns {
            let at = start.addingTimeInterval(Double(turn + 1) * 24 * 60 * 60 / Double(turns + 1))
            let size = (messages - written) / (turns - turn)
            let mine = size / 2
            let sent = try me.store.sendMessages(
                (0..<mine).map { "my message \(written + $0) in the long thread, about the trip next month" }, to: id,
                now: at)
            try deliver(sent.map(EntryCodec.encode), to: other)
            let answered = try other.sendMessages(
                (0..<(size - mine)).map { "their answer \(written + mine + $0) in the long thread: fine by me" },
                to: id, now: at.addingTimeInterval(1))
            try deliver(answered.map(EntryCodec.encode), to: me.store)
            written += size
        }
        _ = try me.store.markRead(id, now: now)
    }

    private static func deliver(_ entries: [[UInt8]], to store: ConfabStore) throws {
        var index = 0
        while index < entries.count {
            let batch = Array(entries[index..<min(index + 500, entries.count)])
            for result in try store.append(batch: batch) {
                if case .failure(let rejection) = result { throw rejection }
            }
            index += 500
        }
    }
}
