import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import Foundation

/// Which of my messages an action is for: `--seq N` as `history --json` prints it, or
/// `--last`, my latest message that is still there.
struct MessageChoice: ParsableArguments {
    @Option(help: "The message's seq, as `history --json` prints it (one of your messages).")
    var seq: UInt64?

    @Flag(help: "Your latest message in the conversation.")
    var last = false

    func validate() throws {
        guard (seq != nil) != last else { throw ValidationError("give exactly one of --seq N and --last") }
        if let seq, seq == 0 { throw ValidationError("--seq starts at 1") }
    }

    func resolve(in conversation: ConversationID, local: Profile) throws -> UInt64 {
        if let seq { return seq }
        guard let latest = try local.store.lastOwnMessageSeq(in: conversation) else {
            throw CLIError("you have no message in this conversation to act on")
        }
        return latest
    }
}

extension Confab {
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Edit one of your messages: everyone sees the new text, marked edited.",
            discussion: """
                The new text comes from the arguments, else from standard input. Every \
                participant's node shows the latest text with "(edited)"; `history --json` \
                keeps the earlier texts in "edits". Only your own messages can be edited.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var message: MessageChoice

        @Argument(help: "A conversation id prefix, or a peer's name (their most recent thread).")
        var conversation: String

        @Argument(help: "The new text; read from standard input when omitted.")
        var text: [String] = []

        func run() async throws {
            let local = try global.open()
            let id = try Resolver(store: local.store).conversation(conversation)
            let target = try message.resolve(in: id, local: local)
            let newText =
                text.isEmpty
                ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                    .trimmingCharacters(in: .newlines)
                : text.joined(separator: " ")
            let done = try await local.messenger().edit(target, in: id, text: newText)
            if output.json {
                try JSONOutput.print(done)
            } else {
                Console.out("Edited your message #\(target) (\(id.shortHex)) — sending…")
            }
        }
    }

    struct Unsend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete one of your messages for everyone.",
            discussion: """
                Every participant's node replaces the text with "message deleted" and removes it, \
                its earlier versions and its words in the search index from its store; the signed \
                (encrypted) entry stays in the log, which must still verify and travel (docs/messages.md, \
                "Edit and delete for everyone"). Asks for confirmation on a terminal; pass --yes \
                to skip (required when not on a terminal).
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var message: MessageChoice

        @Argument(help: "A conversation id prefix, or a peer's name (their most recent thread).")
        var conversation: String

        @Flag(name: [.customShort("y"), .long], help: "Do not ask for confirmation.")
        var yes = false

        func run() async throws {
            let local = try global.open()
            let id = try Resolver(store: local.store).conversation(conversation)
            let target = try message.resolve(in: id, local: local)
            if !yes {
                guard Console.stdinIsTerminal else {
                    throw CLIError("refusing to delete a message for everyone without confirmation; pass --yes")
                }
                if let text = try local.store.message(id, author: local.me, seq: target)?.text {
                    Console.err("#\(target): \(TextSanitizer.line(text))")
                }
                guard Console.confirm("Delete this message for everyone? y/N") else {
                    Console.err("Not deleted.")
                    return
                }
            }
            let done = try await local.messenger().unsend(target, in: id)
            if output.json {
                try JSONOutput.print(done)
            } else {
                Console.out("Deleted your message #\(target) for everyone (\(id.shortHex)) — sending…")
            }
        }
    }
}
