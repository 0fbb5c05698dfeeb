import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

/// A member serves a file's chunks damaged to a real node (Protocol.md §17.5 step 3): the
/// node writes none of them, counts them, disconnects the member at the fourth, and gets
/// the file whole from its sender later.
@Suite(.serialized) struct HostileFileTests {
    @Test func damagedChunksAreNeverWrittenAndTheirSenderIsDisconnected() async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root)
        let (alice, bob) = (nodes[0], nodes[1])
        let mallory = try HostilePeer(name: "mallory")
        defer {
            Task { await mallory.shutdown() }
            for node in nodes { try? node.stop() }
        }
        for node in nodes { try node.cli(["peers", "add", mallory.id.hex, "--name", "mallory"]) }
        try alice.cli(["new", "bob", "mallory", "--title", "Files"])
        let id = try alice.newestConversation()
        let source = try SampleFiles.write(root.appendingPathComponent("plan.bin"), size: 2_000_000, seed: 9)
        let sent = try #require(try alice.sendFiles(to: id.hex, [source.path]).first)
        let fileID = try #require(FileID(hex: sent))

        // Mallory, a member, takes the conversation and the file's manifest from Alice.
        try alice.start(discovery: false)
        try await mallory.connect(to: alice)
        try await mallory.takeConversation(id, from: alice) { (try? mallory.store.history(id))?.count == 1 }
        try mallory.send(.fileWant(.init(file: fileID, manifest: true)), to: alice)
        var manifest: [UInt8] = []
        try await waitUntil(timeout: 30, "alice to send mallory the manifest") {
            for case .fileManifest(fileID, let bytes) in try mallory.received(from: alice) { manifest = bytes }
            return !manifest.isEmpty
        }
        try alice.stop()

        // Bob meets only Mallory, who hands him the conversation and answers every chunk he
        // asks for with bytes of the right length that do not match their names, and after
        // each answer claims again to hold every chunk (Bob asks a peer whose chunk failed
        // for nothing more of the file until it says so).
        try bob.start(discovery: false)
        try await mallory.connect(to: bob)
        let creator = try alice.nodeID()
        try mallory.send(.entries(try mallory.store.entries(in: id, author: creator, after: 0)), to: bob)
        let layout = try #require(try mallory.store.fileRecord(fileID)?.layout)
        var answered = 0
        var damaged = 0
        try await waitUntil(timeout: 60, "bob to disconnect mallory") {
            let wants = try mallory.received(from: bob).compactMap { message -> SessionMessage.FileWant? in
                if case .fileWant(let want) = message { return want }
                return nil
            }
            // Bob may close the session between two answers (at the fourth damaged chunk):
            // what Mallory would still send then has nowhere to go.
            answering: for want in wants.dropFirst(answered) {
                if want.manifest {
                    guard try mallory.sendIfConnected([.fileManifest(file: fileID, manifest: manifest)], to: bob)
                    else { break answering }
                }
                for index in want.chunks {
                    let junk = [UInt8](
                        repeating: UInt8(truncatingIfNeeded: index), count: layout.cipherLength(of: index))
                    guard try mallory.sendIfConnected([.fileChunk(file: fileID, index: index, data: junk)], to: bob)
                    else { break answering }
                    damaged += 1
                }
                let everything = ChunkSet.full(count: layout.chunkCount).bytes
                guard
                    try mallory.sendIfConnected(
                        [.fileHave(.init(file: fileID, manifest: true, chunks: everything))], to: bob)
                else { break answering }
            }
            answered = wants.count
            return try !mallory.isConnected(to: bob)
        }
        #expect(damaged >= 4)
        #expect(bob.logLines("sent chunk", "does not match its name") == 4)
        #expect(bob.logLines("closing session with \(mallory.id.shortHex)", "sent 4 chunks that do not match") == 1)
        #expect(try bob.heldBytes(of: fileID.hex) == 0, "nothing Mallory sent was written")

        // The sender comes back: Bob gets the file whole from her.
        try alice.start(discovery: false, extra: ["--peer", bob.peerAddress])
        try await bob.waitForFile(fileID.hex)
        let out = root.appendingPathComponent("saved.bin")
        #expect(try bob.cli(["save", fileID.hex, out.path]).status == 0)
        #expect(try SampleFiles.sha256(out) == SampleFiles.sha256(source))
    }
}
