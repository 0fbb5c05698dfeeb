import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode

extension Confab {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a conversation and its messages from this machine.",
            discussion: "Asks for confirmation on a terminal; pass --yes to skip (required when not on a terminal).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A conversation id prefix, or a peer's name (their most recent thread).")
        var conversation: String

        @Flag(name: [.customShort("y"), .long], help: "Do not ask for confirmation.")
        var yes = false

        func run() async throws {
            let node = try global.open()
            let id = try Resolver(store: node.store).conversation(conversation)
            let name = try node.store.conversation(id).map { TextSanitizer.line($0.displayName) } ?? id.shortHex
            if !yes {
                guard Console.stdinIsTerminal else {
                    throw CLIError("refusing to delete \(name) without confirmation; pass --yes")
                }
                Console.err("\(name) (\(id.shortHex))")
                guard Console.confirm("Delete this conversation and its messages from this machine? y/N") else {
                    Console.err("Not deleted.")
                    return
                }
            }
            try await node.messenger().delete(id)
            if output.json {
                try JSONOutput.print(["deleted": id.hex])
            } else {
                Console.out("Deleted \(name) from this machine.")
            }
        }
    }
}
