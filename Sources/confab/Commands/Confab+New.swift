import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode

extension Confab {
    struct New: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start a conversation (a new thread) with one or more peers.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "Peers: names, keys or unique key prefixes.")
        var peers: [String]

        @Option(help: "A title for the thread.")
        var title: String?

        @Option(help: "A first message.")
        var message: String?

        @Flag(
            help: """
                A large group: up to 1,024 members, managed by you alone, no receipts or typing \
                (every group of more than 64 is one).
                """)
        var large = false

        func validate() throws {
            if peers.isEmpty { throw ValidationError("name at least one peer") }
            if let title, title.utf8.count > Limits.maxTitleBytes {
                throw ValidationError("--title is longer than \(Limits.maxTitleBytes) bytes")
            }
        }

        func run() async throws {
            let node = try global.open()
            let resolver = Resolver(store: node.store)
            let members = try peers.map(resolver.peer)
            let created = try await node.messenger().create(
                with: members, title: title, firstMessage: message, large: large)
            let summary = try node.store.conversation(created.conversation)!
            if output.json {
                try JSONOutput.print(JSONOutput.conversation(summary))
                return
            }
            var text = "Started \(TextSanitizer.line(summary.displayName)) (\(created.conversation.shortHex))"
            if created.firstMessageSeq != nil { text += " — first message sending…" }
            Console.out(text)
        }
    }
}
