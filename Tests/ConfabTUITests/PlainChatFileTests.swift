import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNode
import Foundation
import Testing

@testable import ConfabTUI

/// Files in the plain chat, with real nodes in this process: `/file PATH` sends one, a
/// received one is announced with how to save it, `/files` lists them, `/save` writes one.
@Suite struct PlainChatFileTests {
    @Test func fileSendsAndSaveWritesAReceivedFile() async throws {
        let pair = try await PlainChatPair()
        defer { pair.remove() }
        let (bob, input, waitFor) = (pair.bob, pair.input, pair.waitFor)
        try await waitFor("* bob is online")
        input.yield("/new bob")
        try await waitFor("new conversation with bob")

        let outgoing = pair.root.appendingPathComponent("notes.txt")
        try Data(repeating: 0x41, count: 700_000).write(to: outgoing)
        input.yield("/file \(outgoing.path)")
        try await waitFor("You: 📎 notes.txt · 700.0 kB")
        var arrived: FileInfo?
        for await event in pair.bobEvents {
            if case .file(let info) = event, info.state == .complete { arrived = info }
            if arrived != nil { break }
        }
        let theirs = try #require(arrived)
        #expect(theirs.name == "notes.txt")
        try await waitFor("bob has notes.txt")

        // Bob answers with a file of his own.
        let reply = pair.root.appendingPathComponent("answer.bin")
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try Data(bytes).write(to: reply)
        let sent = try await bob.messenger.sendFile(
            at: reply.path, folder: "", to: .conversation(theirs.conversationID))
        let id = String(sent.file.hex.prefix(12))
        try await waitFor("answer.bin received — /save \(id)")
        input.yield("/files")
        try await waitFor("\(id)  📎 answer.bin · 300.0 kB")
        let folder = pair.root.appendingPathComponent("saved")
        input.yield("/save \(id) \(folder.path)")
        try await waitFor("saved to \(folder.path)/answer.bin")
        #expect([UInt8](try Data(contentsOf: folder.appendingPathComponent("answer.bin"))) == bytes)
        await pair.quit()
    }
}
