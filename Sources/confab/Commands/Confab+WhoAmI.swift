import ArgumentParser
import ConfabClient
import ConfabNode

extension Confab {
    struct WhoAmI: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "whoami", abstract: "Show this node's name, key and fingerprint.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        struct Info: Encodable {
            let id: String
            let name: String
            let fingerprint: String
            let dataDirectory: String

            init(node: Profile, name: String) {
                id = node.me.hex
                self.name = name
                fingerprint = node.me.fingerprint
                dataDirectory = node.directory.path
            }
        }

        func run() throws {
            let node = try global.open()
            let info = Info(node: node, name: try node.displayName())
            if output.json {
                try JSONOutput.print(info)
                return
            }
            Console.out(
                """
                \(Style.bold(info.name))
                key          \(info.id)
                fingerprint  \(info.fingerprint)
                data         \(info.dataDirectory)
                """)
        }
    }
}
