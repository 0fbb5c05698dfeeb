import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import Foundation

extension Confab {
    struct React: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "React to a message with an emoji, or take your reaction back.",
            discussion: """
                Any message of the conversation can be reacted to, yours or another member's. \
                Every participant's node shows the emoji under the message with a count and who \
                reacted. A message is named as \(Resolver.messageForms). Reacting again with the \
                same emoji is refused; --remove takes it back. At most \
                \(Limits.maxReactionsPerReactor) emoji of yours on one message.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A conversation id prefix, or a peer's name (their most recent thread).")
        var conversation: String

        @Argument(help: "The message: its id from `history --json`, AUTHOR/SEQ, or \"last\".")
        var message: String

        @Argument(help: "One emoji, such as 👍.")
        var emoji: String

        @Flag(help: "Take this reaction of yours back.")
        var remove = false

        func run() async throws {
            let local = try global.open()
            let resolver = Resolver(store: local.store)
            let id = try resolver.conversation(conversation)
            let target = try resolver.message(message, in: id)
            let done = try await local.messenger().react(emoji, to: target, in: id, removed: remove)
            if output.json {
                try JSONOutput.print(done)
            } else {
                let whose = target.author == local.me ? "your" : "\(try resolver.authorName(target.author, in: id))'s"
                Console.out(
                    "\(remove ? "Took back" : "Reacted") \(done.emoji) \(remove ? "from" : "to") \(whose) "
                        + "message #\(target.seq) (\(id.shortHex)) — sending…")
            }
        }
    }
}
