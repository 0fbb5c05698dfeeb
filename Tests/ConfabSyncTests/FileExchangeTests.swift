import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore
@testable import ConfabSync

@Suite("File exchange")
struct FileExchangeTests {
    /// Alice's conversation with the others, held by everyone connected.
    func conversation(
        _ harness: FileHarness, _ alice: FileHarness.Node, with others: [FileHarness.Node]
    ) throws
        -> ConversationID
    {
        let (id, _) = try alice.store.createConversation(with: others.map(\.id), firstMessage: "files coming")
        try harness.changed(id, at: alice)
        try harness.run()
        return id
    }

    @Test func aFileReachesOnePeerWhole() throws {
        let (harness, alice, bob, _) = try FileHarness.trio()
        harness.connect(alice, bob)
        let id = try conversation(harness, alice, with: [bob])
        let sent = try alice.sendFile(size: 150_000, to: id)
        try harness.wrote([sent.entry], at: alice)
        try harness.run()
        #expect(try bob.plaintext(of: sent.file) == sent.bytes)
        #expect(try bob.store.files(in: id).first?.state == .complete)
        // Each chunk crossed once; nothing was asked twice.
        #expect(harness.chunksSent(by: alice, to: bob) == 10)
        #expect(harness.closed.isEmpty)
    }

    @Test func aGroupFetchesFromEachOtherNotOnlyFromTheSender() throws {
        let (harness, alice, bob, carol) = try FileHarness.trio()
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        harness.connect(bob, carol)
        // Four chunks asked of each peer at a time, as with 256 KiB chunks and a 1 MiB window,
        // and progress told as often, for the transfer's length, as for a large file.
        for node in [bob, carol] {
            node.exchange.window = 4 * 16_400
            node.exchange.queueDelay = nil
            node.exchange.haveInterval = .milliseconds(10)
        }
        let id = try conversation(harness, alice, with: [bob, carol])
        let sent = try alice.sendFile(size: 64 * 16_384, to: id)
        try harness.wrote([sent.entry], at: alice)
        try harness.run()
        #expect(try bob.plaintext(of: sent.file) == sent.bytes)
        #expect(try carol.plaintext(of: sent.file) == sent.bytes)
        let fromOthers = harness.chunksSent(by: bob, to: carol) + harness.chunksSent(by: carol, to: bob)
        #expect(fromOthers > 0)
        #expect(harness.chunksSent(by: alice) + fromOthers == 128)
    }

    @Test func aRelayCarriesAFileToSomeoneNeverOnlineWithTheSender() throws {
        let (harness, alice, bob, _) = try FileHarness.trio()
        let relay = try FileHarness.Node(name: "relay", seed: 9, role: .relay)
        harness.add(relay)
        harness.connect(alice, relay)
        let id = try conversation(harness, alice, with: [bob])
        let sent = try alice.sendFile(size: 100_000, to: id)
        try harness.wrote([sent.entry], at: alice)
        try harness.run()
        let held = try #require(try relay.store.fileRecord(sent.file))
        #expect(held.isComplete && !held.readable)
        try harness.disconnect(alice, relay)
        harness.connect(bob, relay)
        try harness.run()
        #expect(try bob.plaintext(of: sent.file) == sent.bytes)
    }

    @Test func aBadChunkIsFetchedElsewhereAndItsSenderDisconnectedWhenItKeepsOn() throws {
        let (harness, alice, bob, carol) = try FileHarness.trio()
        harness.connect(alice, carol)
        let id = try conversation(harness, alice, with: [bob, carol])
        let sent = try alice.sendFile(size: 40 * 16_384, to: id)
        try harness.wrote([sent.entry], at: alice)
        try harness.run()
        #expect(try carol.plaintext(of: sent.file) == sent.bytes)
        bob.exchange.window = 4 * 16_400
        bob.exchange.queueDelay = nil
        // Carol now damages every chunk she sends, and claims to hold everything.
        harness.damageChunks(from: carol)
        harness.connect(bob, carol)
        harness.connect(bob, alice)
        try harness.run()
        #expect(try bob.plaintext(of: sent.file) == sent.bytes)
        #expect(harness.chunksSent(by: carol, to: bob) >= 4)
        #expect(harness.closed.contains("bob closed carol: sent 4 chunks that do not match their names"))
        // Nothing Carol damaged was written.
        #expect(try bob.store.fileRecord(sent.file)?.held.heldCount == 40)
    }

    @Test func chunksStillOnTheirWayFromAPeerBeingDisconnectedAreNotTaken() throws {
        let (harness, alice, bob, carol) = try FileHarness.trio()
        harness.connect(alice, carol)
        let id = try conversation(harness, alice, with: [bob, carol])
        let sent = try alice.sendFile(size: 40 * 16_384, to: id)
        try harness.wrote([sent.entry], at: alice)
        try harness.run()
        // Bob asks Carol for many chunks at once, all damaged; the close takes effect only
        // after those already sent arrive.
        bob.exchange.window = 16 * 16_400
        bob.exchange.queueDelay = nil
        harness.closesAfterInFlight = true
        harness.damageChunks(from: carol)
        harness.connect(bob, carol)
        try harness.run()
        #expect(harness.chunksSent(by: carol, to: bob) > 4)
        #expect(harness.closed.filter { $0.hasPrefix("bob closed carol") }.count == 1, "\(harness.closed)")
        harness.connect(bob, alice)
        try harness.run()
        #expect(try bob.plaintext(of: sent.file) == sent.bytes)
    }

    @Test func aTransferResumesFromWhatWasWrittenAfterARestart() throws {
        let (harness, alice, bob, _) = try FileHarness.trio()
        harness.connect(alice, bob)
        let id = try conversation(harness, alice, with: [bob])
        let sent = try alice.sendFile(size: 30 * 16_384, to: id)
        // Alice stops answering after 12 chunks, as if she were killed.
        var answered = 0
        harness.tamper = { from, _, message in
            guard from === alice, case .fileChunk = message else { return message }
            answered += 1
            return answered <= 12 ? message : nil
        }
        try harness.wrote([sent.entry], at: alice)
        try harness.run()
        let partial = try #require(try bob.store.fileRecord(sent.file))
        #expect(partial.held.heldCount == 12 && !partial.isComplete)
        try harness.disconnect(alice, bob)
        // Bob restarts: a new exchange on the same store.
        let restarted = try FileHarness.Node(reopening: bob)
        harness.add(restarted)
        harness.tamper = nil
        harness.connect(alice, restarted)
        let before = harness.log.count
        try harness.run()
        #expect(try restarted.plaintext(of: sent.file) == sent.bytes)
        let asked = harness.log[before...].flatMap { entry -> [Int] in
            guard case .fileWant(let want) = entry.message, entry.from == restarted.id else { return [] }
            return want.chunks
        }
        #expect(Set(asked).isDisjoint(with: Set((0..<30).filter { partial.held.contains($0) })))
        #expect(asked.count == 18)
    }

    @Test func aPeerOutsideTheConversationIsAnsweredAsIfTheFileWereUnknown() throws {
        let (harness, alice, bob, carol) = try FileHarness.trio()
        harness.connect(alice, bob)
        let id = try conversation(harness, alice, with: [bob])
        let sent = try alice.sendFile(size: 20_000, to: id)
        try harness.wrote([sent.entry], at: alice)
        try harness.run()
        harness.connect(alice, carol)
        try harness.run()
        let unknown = FileID(bytes: [UInt8](repeating: 7, count: 32))!
        var answers: [SessionMessage] = []
        for file in [sent.file, unknown] {
            let output = try alice.exchange.handle(
                .fileWant(.init(file: file, manifest: true, chunks: [0])), from: carol.id)
            answers += output.sends[carol.id] ?? []
        }
        #expect(
            answers == [
                .fileHave(.init(file: sent.file, manifest: false, chunks: [])),
                .fileHave(.init(file: unknown, manifest: false, chunks: [])),
            ])
    }

    @Test func aFormerMemberIsAnsweredAsIfTheFileWereUnknownEvenOneSentBeforeItsRemoval() throws {
        let (harness, alice, bob, carol) = try FileHarness.trio()
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        let id = try conversation(harness, alice, with: [bob, carol])
        let before = try alice.sendFile(size: 20_000, to: id)
        try harness.wrote([before.entry], at: alice)
        try harness.run()
        #expect(try carol.plaintext(of: before.file) == before.bytes)
        // A member is served the file: what it asks is answered.
        let asked = SessionMessage.fileWant(.init(file: before.file, manifest: true, chunks: []))
        #expect(try alice.exchange.handle(asked, from: carol.id).sends[carol.id]?.isEmpty == false)

        let removal = try alice.store.changeMembers(of: id, add: [], remove: [carol.id], shareHistory: false)
        try harness.wrote([removal], at: alice)
        try harness.run()
        let after = try alice.sendFile(size: 20_000, to: id)
        try harness.wrote([after.entry], at: alice)
        try harness.run()
        #expect(try bob.plaintext(of: after.file) == after.bytes)

        // Carol, removed, asks for both: nothing of either, the answer an unknown file gets.
        var answers: [SessionMessage] = []
        for file in [before.file, after.file] {
            let output = try alice.exchange.handle(
                .fileWant(.init(file: file, manifest: true, chunks: [0])), from: carol.id)
            answers += output.sends[carol.id] ?? []
        }
        #expect(answers.count == 2)
        #expect(answers.first == .fileHave(.init(file: before.file, manifest: false, chunks: [])))
        #expect(answers.last == .fileHave(.init(file: after.file, manifest: false, chunks: [])))
    }

    @Test func aPeerIsNeverAskedForMoreThanTheWindow() throws {
        #expect(try mostChunksAskedAtOnce(window: 3, queueDelay: nil) == 3)
    }

    @Test func aPeerIsAskedForNoMoreThanItDeliversInTheQueueDelay() throws {
        // Here a message takes a millisecond, so Alice's chunks arrive at about one a
        // millisecond: 2 ms of them is two or three, a second of them more than the window.
        let paced = try mostChunksAskedAtOnce(window: 8, queueDelay: .milliseconds(2))
        #expect(paced >= 1 && paced <= 3)
        #expect(try mostChunksAskedAtOnce(window: 8, queueDelay: .seconds(1)) == 8)
        #expect(try mostChunksAskedAtOnce(window: 8, queueDelay: nil) == 8)
    }

    /// Bob fetches a 50-chunk file from Alice: the most chunks he had asked for and not
    /// received at any one time.
    private func mostChunksAskedAtOnce(window chunks: Int, queueDelay: Duration?) throws -> Int {
        let (harness, alice, bob, _) = try FileHarness.trio()
        harness.connect(alice, bob)
        bob.exchange.window = chunks * 16_400
        bob.exchange.queueDelay = queueDelay
        let id = try conversation(harness, alice, with: [bob])
        let sent = try alice.sendFile(size: 50 * 16_384, to: id)
        try harness.wrote([sent.entry], at: alice)
        try harness.run()
        #expect(try bob.plaintext(of: sent.file) == sent.bytes)
        var outstanding = 0
        var most = 0
        for entry in harness.log {
            switch entry.message {
            case .fileWant(let want) where entry.from == bob.id: outstanding += want.chunks.count
            case .fileChunk where entry.from == alice.id: outstanding -= 1
            default: break
            }
            most = max(most, outstanding)
        }
        return most
    }

    @Test func aFileOverTheAutomaticLimitWaitsUntilAccepted() throws {
        let (harness, alice, bob, _) = try FileHarness.trio()
        harness.connect(alice, bob)
        try bob.store.setAutoDownloadLimit(10_000)
        let id = try conversation(harness, alice, with: [bob])
        let sent = try alice.sendFile(size: 20_000, to: id)
        try harness.wrote([sent.entry], at: alice)
        try harness.run()
        #expect(try bob.store.files(in: id).first?.state == .waiting)
        #expect(harness.chunksSent(by: alice) == 0)
        try bob.store.acceptFile(sent.file)
        try harness.refresh(at: bob)
        try harness.run()
        #expect(try bob.plaintext(of: sent.file) == sent.bytes)
    }

    @Test func aFileMessageBeforeHelloEndsTheSession() throws {
        let (_, alice, bob, _) = try FileHarness.trio()
        alice.exchange.peerConnected(bob.id)
        let output = try alice.exchange.handle(
            .fileWant(.init(file: FileID(bytes: [UInt8](repeating: 1, count: 32))!, manifest: true)), from: bob.id)
        #expect(output.misbehaving[bob.id] == "file message before hello")
    }
}

extension FileHarness.Node {
    /// The same store and files, with a new sync engine and exchange: a restart.
    convenience init(reopening node: FileHarness.Node) throws {
        try self.init(reusing: node.base.store, name: node.name, files: node.files)
    }
}
