import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabWire
import Logging
import Testing

@testable import ConfabNode
@testable import ConfabStore

@Suite struct RelayPolicyTests {
    let relayKeys = SigningKeyPair.generate()
    let known = NodeID(SigningKeyPair.generate().publicKey)
    let stranger = NodeID(SigningKeyPair.generate().publicKey)
    let other = NodeID(SigningKeyPair.generate().publicKey)

    func policy(_ configure: (inout RelayConfiguration) -> Void) throws -> RelayPolicy {
        let store = try ConfabStore.inMemory(identity: relayKeys)
        try store.savePeer(known, name: "known")
        // Seen on the network is not known.
        try store.notePeerSeen(stranger, suggestedName: "stranger", address: nil)
        var configuration = RelayConfiguration()
        configure(&configuration)
        return try RelayPolicy(configuration: configuration, store: store, logger: Logger(label: "test"))
    }

    func peek(author: NodeID) -> EntryPeek {
        EntryPeek(
            conversation: ConversationID(bytes: [UInt8](repeating: 7, count: 16))!, author: author, participants: nil)
    }

    @Test func acceptKnownAdmitsSessionsAndConversationsOfKnownKeysOnly() throws {
        let policy = try policy {
            $0.accept = .known
            $0.allow = [other]
        }
        #expect(policy.sessionRefusal(for: known) == nil)
        #expect(policy.sessionRefusal(for: other) == nil)
        #expect(policy.sessionRefusal(for: stranger)?.isRefusal == true)
        #expect(
            policy.refusal(of: peek(author: stranger), size: 10, participants: [stranger, known], from: other) == nil)
        #expect(
            policy.refusal(of: peek(author: stranger), size: 10, participants: [stranger, stranger], from: other)
                == .notAllowed)
    }

    @Test func filesCountAgainstTheQuotaOnceEachUpToTheReserve() throws {
        let policy = try policy { $0.quotaBytes = 1_000_000 }  // reserve: the last 100,000 bytes
        func file(_ n: UInt8, size: UInt64) -> FileRecord {
            let layout = FileLayout(size: size, chunkSize: 1 << 14)!
            return FileRecord(
                id: FileID(bytes: [UInt8](repeating: n, count: 32))!, layout: layout, manifest: nil,
                held: ChunkSet(count: layout.chunkCount), accepted: false, readable: false, problem: nil)
        }
        #expect(policy.reserveFile(file(1, size: 800_000)))
        #expect(policy.storedBytes == 800_000 + 16 * 49)
        // Asked again (the next look for files to fetch), it is not counted twice.
        #expect(policy.reserveFile(file(1, size: 800_000)))
        #expect(policy.storedBytes == 800_000 + 16 * 49)
        #expect(!policy.reserveFile(file(2, size: 100_000)), "it would reach into the reserve")
        #expect(policy.reserveFile(file(3, size: 50_000)))
    }

    @Test func acceptAnyServesEveryone() throws {
        let policy = try policy { _ in }
        #expect(policy.sessionRefusal(for: stranger) == nil)
        #expect(policy.refusal(of: peek(author: stranger), size: 10, participants: [stranger], from: stranger) == nil)
    }

    @Test func overTheReserveUnknownSendersAreRefusedFirstThenEveryone() throws {
        let policy = try policy { $0.quotaBytes = 1000 }  // reserve: the last 100 bytes
        let members = [known, stranger]
        #expect(policy.refusal(of: peek(author: stranger), size: 850, participants: members, from: stranger) == nil)
        #expect(policy.storedBytes == 850)
        #expect(policy.refusal(of: peek(author: stranger), size: 100, participants: members, from: stranger) == .quota)
        #expect(policy.refusal(of: peek(author: known), size: 100, participants: members, from: known) == nil)
        #expect(policy.refusal(of: peek(author: known), size: 100, participants: members, from: known) == .quota)
        // An admitted entry that was not stored after all gives its bytes back.
        policy.notStored(peek(author: known), size: 100)
        #expect(policy.storedBytes == 850)
    }

    @Test func sizesParseAsOperatorsWriteThem() {
        #expect(ByteSize.parse("500MB") == 500_000_000)
        #expect(ByteSize.parse("2GiB") == 2_147_483_648)
        #expect(ByteSize.parse("40 kB") == 40_000)
        #expect(ByteSize.parse("1048576") == 1_048_576)
        #expect(ByteSize.parse("lots") == nil)
        #expect(ByteSize.parse("5XB") == nil)
        #expect(ByteSize.parse("-1MB") == nil)
    }
}
