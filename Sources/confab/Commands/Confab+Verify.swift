import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode

extension Confab {
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the safety number to compare with a peer; --confirm marks their key verified.",
            discussion: """
                The safety number is derived from both keys, so the peer's "confab verify" shows \
                the same digits for you. Compare them in person or on a call you trust; if they \
                match, nobody is impersonating either of you. Verification belongs to the key: \
                a new key using the same name starts unverified.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A peer's name, key, or unique key prefix; with --confirm, its full key or fingerprint.")
        var peer: String

        @Flag(help: "The numbers matched: mark this peer's key verified (give the full key or fingerprint).")
        var confirm = false

        /// A name comes from the peer itself and a prefix may match a key chosen to share
        /// it, so what gets verified is named in full.
        func validate() throws {
            if confirm, Resolver.exactKey(peer) == nil {
                throw ValidationError(
                    "--confirm takes the peer's full key or fingerprint, not a name or key prefix (either could point "
                        + "at another key): run \"confab verify \(peer)\" and use the command it prints")
            }
        }

        struct Result: Encodable {
            let peer: JSONOutput.PeerInfo
            let safetyNumber: String
        }

        func run() async throws {
            let node = try global.open()
            let id = try Resolver(store: node.store).peer(peer)
            guard id != node.me else {
                throw CLIError("\"\(peer)\" is your own key; verify a peer's key instead (see \"confab peers\")")
            }
            if confirm {
                if let stored = try node.store.peer(id), stored.trust == .blocked {
                    throw CLIError(
                        "\(TextSanitizer.line(stored.name)) is blocked; "
                            + "run \"confab unblock \(id.shortHex)\" first if you trust this key")
                }
                try await node.messenger().setTrust(.verified, for: id)
            }
            let number = SafetyNumber(node.me, id)
            let stored = try node.store.peer(id)
            let info = stored ?? Peer(id: id, name: id.shortHex, addedAt: .now)
            if output.json {
                try JSONOutput.print(Result(peer: JSONOutput.peer(info), safetyNumber: number.description))
                return
            }
            let name = TextSanitizer.line(info.name)
            let label = "\(name) (\(id.shortHex))"
            if let warning = info.warning { Console.out("⚠ \(name) \(TextSanitizer.line(warning))\n") }
            Console.out("Safety number with \(Style.bold(label)):\n")
            for line in number.lines { Console.out("    " + line) }
            Console.out("\nTheir key: \(id.fingerprint)")
            if confirm {
                Console.out("\(label) is now verified (this key only; a new key will start unverified).")
            } else if info.trust == .verified {
                Console.out("Already verified.")
            } else {
                Console.out(
                    """
                    Compare it with what "confab verify" shows on their machine, in person or on a call you trust.
                    If it matches: confab verify \(id.hex) --confirm
                    """)
            }
        }
    }
}
