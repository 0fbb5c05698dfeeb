import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import Foundation

extension Confab {
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create this machine's identity (a key pair) and its local store.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Option(help: "Your display name (default: your login name).")
        var name: String?

        func validate() throws {
            if let name, name.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("--name must not be empty")
            }
            if let name, let refusal = DisplayName.keyLikeRefusal(name) { throw ValidationError(refusal) }
        }

        /// The name a new identity gets when none is given.
        static var loginName: String {
            ProcessInfo.processInfo.environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? "me"
        }

        func run() throws {
            let directory = global.directory
            if IdentityFile.exists(at: directory.identityFile) {
                let node = try Profile.open(directory)
                throw CLIError(
                    "already initialised as \(try node.displayName()) (\(node.me.shortHex)) in \(directory.path); "
                        + "use --data DIR for another identity")
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
