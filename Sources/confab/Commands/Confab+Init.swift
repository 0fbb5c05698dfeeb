import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import ConfabWire
import Foundation

extension Confab {
    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create this machine's identity (a key pair) and its local store, or join your devices (--link).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Option(
            help:
                "Your display name (default: your login name); with --link, this device's name (default: the host name)."
        )
        var name: String?

        @Option(
            help: ArgumentHelp(
                "Join your devices: the code \"confab devices link\" shows on a machine you already use.",
                valueName: "CODE"))
        var link: String?

        @Option(
            help: ArgumentHelp("With --link: where the offer listens, as it prints.", valueName: "HOST:PORT"))
        var peer: String?

        func validate() throws {
            if let link, LinkCode(text: link) == nil {
                throw ValidationError(
                    "--link needs the 10-symbol code the other machine shows, like ABCDE-FGHJK (letters and digits; I, L and O read as 1, 1 and 0)"
                )
            }
            if peer != nil, link == nil { throw ValidationError("--peer goes with --link") }
            if let peer {
                do {
                    _ = try HostPort(peer)
                } catch {
                    throw ValidationError("--peer must be HOST:PORT, as \"confab devices link\" prints it")
                }
            }
            if let name, name.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("--name must not be empty")
            }
            if let name, let refusal = DisplayName.keyLikeRefusal(name) { throw ValidationError(refusal) }
        }

        /// The name a new identity gets when none is given.
        static var loginName: String {
            ProcessInfo.processInfo.environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? "me"
        }

        func run() async throws {
            let directory = global.directory
            if IdentityFile.exists(at: directory.identityFile) {
                let node = try Profile.open(directory)
                throw CLIError(
                    "already initialised as \(try node.displayName()) (\(node.me.shortHex)) in \(directory.path); "
                        + "use --data DIR for another identity")
            }
            if let link, let code = LinkCode(text: link) {
                try await InitLink(global: global, output: output, code: code, name: name, peer: peer).run()
                return
            }
            let node = try Profile.initialize(directory, name: name ?? Self.loginName)
            let chosen = try node.displayName()
            if output.json {
                try JSONOutput.print(WhoAmI.Info(node: node, name: chosen))
                return
            }
            Console.out(
                """
                Created identity "\(chosen)" in \(directory.path)
                Your key (give it to the people you talk to):
                  \(node.me.hex)
                Next: confab peers add THEIR_KEY --name THEIR_NAME
                """)
        }
    }
}
