import ConfabModel
import Foundation
import Testing

@testable import ConfabTUI

/// Files in the full-screen chat: `/file PATH` in the input bar sends one (Tab completes
/// the path), a file message shows its name, size and how much of it is here (mine: how
/// far its recipients got), and Ctrl+E, Enter on a received one saves it.
@Suite struct ChatStateFileTests {
    let one = Fixtures.conversation(1)

    func file(
        _ seq: UInt64, from author: NodeID = Fixtures.bob, state: FileInfo.State, held: UInt64 = 0
    )
        -> ChatMessage
    {
        var message = Fixtures.message(1, seq: seq, from: author, text: "plan.pdf", order: seq * 10)
        message.file = FileInfo(
            conversationID: one, author: author, seq: seq,
            fileID: FileID(bytes: [UInt8](repeating: UInt8(seq), count: 32))!,
            name: "plan.pdf", folder: "", mediaType: "application/pdf", size: 2_000_000, width: 0, height: 0,
            heldBytes: state == .complete ? 2_000_000 : held, state: state)
        return message
    }

    @Test func fileAndAPathSendsAFileAndTabCompletesThePath() {
        var state = Fixtures.state(open: 1)
        _ = state.type("/file ~/Doc")
        #expect(state.handle(.tab) == [.completePath("/file ~/Doc")])
        #expect(state.focus == .chat, "Tab completes here; it does not move to the list")
        _ = state.apply(.completion("/file ~/Documents/"))
        #expect(state.input.text == "/file ~/Documents/")
        _ = state.type("plan.pdf")
        // Typing the command said "typing…"; sending the file says that stopped.
        #expect(state.handle(.enter) == [.typing(one, active: false), .sendFile(one, path: "~/Documents/plan.pdf")])
        #expect(state.input.isEmpty)
        _ = state.type("/file")
        #expect(state.handle(.enter).isEmpty)
        #expect(state.notice?.contains("/file PATH") == true)
        // Text that only starts like the command is a message.
        state.input.clear()
        _ = state.type("/filesystem is full")
        #expect(state.handle(.enter) == [.send(one, text: "/filesystem is full")])
    }

    @Test func aReceivedFileShowsItsProgressAndCtrlEEnterSavesIt() {
        var state = Fixtures.state(open: 1, history: [file(1, state: .fetching, held: 500_000)])
        var frame = Fixtures.render(state)
        #expect(frame.contains("📎 plan.pdf · 2.0 MB · application/pdf"))
        #expect(frame.contains("receiving ▓▓░░░░░░░░ 25%"))
        _ = state.apply(.messageChanged(file(1, state: .complete)))
        frame = Fixtures.render(state)
        #expect(frame.contains("received — save it: Ctrl+E, Enter"))
        _ = state.handle(.control("e"))
        #expect(state.notice?.contains("Enter save") == true)
        let effects = state.handle(.enter)
        #expect(effects == [.saveFile(file(1, state: .complete).file!)])
        #expect(state.chat?.isSelecting == false)
    }

    @Test func myFileShowsHowFarItsRecipientsGotAndCannotBeEdited() {
        var state = Fixtures.state(open: 1, history: [file(2, from: Fixtures.me, state: .complete)])
        #expect(Fixtures.render(state).contains("sent — recipients fetch it from here"))
        _ = state.apply(.filePeer(one, seq: 2, peer: Fixtures.bob, held: 1_000_000, complete: false))
        #expect(Fixtures.render(state).contains("sending ▓▓▓▓▓░░░░░ 50%"))
        _ = state.apply(.filePeer(one, seq: 2, peer: Fixtures.bob, held: 2_000_000, complete: true))
        #expect(Fixtures.render(state).contains("✓ every recipient has it"))
        _ = state.handle(.control("e"))
        _ = state.handle(.character("e"))
        #expect(state.chat?.editing == nil)
        #expect(state.notice?.contains("cannot be edited") == true)
    }

    @Test func progressNeverChangesABubblesHeight() {
        let waiting = file(1, state: .fetching, held: 0)
        let done = file(1, state: .complete)
        #expect(
            MessageBubble.height(of: waiting, width: 60, showsAuthor: false)
                == MessageBubble.height(of: done, width: 60, showsAuthor: false))
        let bubble = MessageBubble(
            message: waiting, width: 60, showsAuthor: false, isHighlighted: false, context: Fixtures.context)
        #expect(bubble.lines().count == MessageBubble.height(of: waiting, width: 60, showsAuthor: false))
    }

    @Test func pathsCompleteAsFarAsTheyAreUnambiguous() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("confab-complete-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("photos"), withIntermediateDirectories: true)
        for name in ["report-2023.pdf", "report-2024.pdf"] {
            _ = FileManager.default.createFile(atPath: root.appendingPathComponent(name).path, contents: Data())
        }
        #expect(FileActions.complete("/file \(root.path)/rep") == "/file \(root.path)/report-202")
        #expect(FileActions.complete("/file \(root.path)/ph") == "/file \(root.path)/photos/")
        #expect(FileActions.complete("/file \(root.path)/nothing") == "/file \(root.path)/nothing")
    }

    @Test func aSaveSaysWhereTheFileWentOrThatItIsBeingFetched() {
        var state = Fixtures.state(open: 1)
        let info = file(1, state: .complete).file!
        _ = state.apply(.fileSave(info, savedTo: "/home/alice/Downloads/plan.pdf"))
        #expect(state.notice == "Saved to /home/alice/Downloads/plan.pdf")
        _ = state.apply(.fileSave(info, savedTo: nil))
        #expect(state.notice?.hasPrefix("Fetching it") == true)
    }
}
