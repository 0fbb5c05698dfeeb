import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode

extension Confab {
    struct Unblock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Unblock a peer: accept its sessions and show its messages again (it becomes unverified).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A blocked peer's name, key, or unique key prefix.")
        var peer: String

        func run() async throws {
            let node = try global.open()
            let id = try Resolver(store: node.store).peer(peer)
            guard let current = try node.store.peer(id), current.trust == .blocked else {
                let blocked = try node.store.peers().filter { $0.trust == .blocked }.map { TextSanitizer.line($0.name) }
                throw CLIError(
                    "\"\(peer)\" is not blocked — blocked peers: "
                        + (blocked.isEmpty ? "none" : blocked.joined(separator: ", ")))
            }
            try await node.messenger().setTrust(.unverified, for: id)
            let info = try node.store.peer(id)!
            if output.json {
                try JSONOutput.print(JSONOutput.peer(info))
                return
            }
            Console.out(
                "Unblocked \(TextSanitizer.line(info.name)) (\(id.shortHex)): its messages show again and it can connect. "
                    + "Compare safety numbers to verify it: confab verify \(id.shortHex)")
        }
    }
}
