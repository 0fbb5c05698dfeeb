import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode

extension Confab {
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a conversation's messages (and mark them read).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A conversation id prefix, or a peer's name (their most recent thread).")
        var conversation: String

        @Option(help: "How many of the latest messages to show.")
        var limit = 50

        @Flag(help: "Leave the conversation unread.")
        var noMarkRead = false

        func validate() throws {
            guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
        }

        func run() async throws {
            let node = try global.open()
            let id = try Resolver(store: node.store).conversation(conversation)
            let messages = try node.store.history(id, limit: limit)
            if !noMarkRead { try await node.messenger().markRead(id) }
            if output.json {
                try JSONOutput.print(messages.map(JSONOutput.message))
                return
            }
            let summary = try node.store.conversation(id)
            let title = summary.map { TextSanitizer.line($0.displayName) } ?? id.shortHex
            Console.out(Style.bold(title) + Style.dim("  (\(id.shortHex))"))
            for warning in summary?.warnings ?? [] { Console.out("⚠ " + TextSanitizer.line(warning)) }
            guard !messages.isEmpty else {
                let first = summary?.participants.first.map { TextSanitizer.line($0.name) } ?? "them"
                Console.out("No messages yet. Say hi to \(first): confab send \(id.shortHex) \"hi\"")
                return
            }
            for line in HumanOutput.historyLines(messages, width: Console.width) { Console.out(line) }
        }
    }
}
