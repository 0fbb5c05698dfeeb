import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode

extension Confab {
    struct Block: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Block a peer: refuse its sessions and hide its messages.",
            discussion: """
                A running node closes the peer's session at once and refuses new ones. Its \
                messages that still reach you through others are stored, so every log stays \
                whole and group conversations keep converging, but never shown: not in history, \
                list previews, unread counts, search or watch. "confab unblock" shows them again.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A peer's name, key, or unique key prefix.")
        var peer: String

        func run() async throws {
            let node = try global.open()
            let id = try Resolver(store: node.store).peer(peer)
            guard id != node.me else { throw CLIError("\"\(peer)\" is your own key; you cannot block yourself") }
            let before = try node.store.peer(id)?.trust
            try await node.messenger().setTrust(.blocked, for: id)
            let info = try node.store.peer(id)!
            if output.json {
                try JSONOutput.print(JSONOutput.peer(info))
                return
            }
            let label = "\(TextSanitizer.line(info.name)) (\(id.shortHex))"
            Console.out(
                before == .blocked
                    ? "\(label) was already blocked."
                    : "Blocked \(label): sessions refused, messages hidden. Undo: confab unblock \(id.shortHex)")
        }
    }
}
