import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

/// A data directory as a heavy user's would be after months: `conversations` threads with
/// twenty people, half the messages theirs (signed by them, verified on the way in), some
/// unread, some titled, activity spread over the last 60 days.
enum ChatFixture {
    static func make(at url: URL, conversations: Int, perConversation: Int) throws -> Profile {
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
        return me
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
