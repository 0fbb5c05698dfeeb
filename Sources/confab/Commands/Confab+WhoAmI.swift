import ArgumentParser
import ConfabClient
import ConfabModel
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
            /// The person key, for a linked device only (its own key is then `id`).
            let person: String?
            /// Why this device no longer writes as its person, when its person removed it.
            let removed: String?

            init(node: Profile, name: String) throws {
                id = node.me.hex
                self.name = name
                fingerprint = node.me.fingerprint
                dataDirectory = node.directory.path
                person = (try? node.store.linkedPerson())??.hex
                removed = try node.store.myDeviceRemoval()?.message
            }
        }

        func run() throws {
            let node = try global.open()
            let info = try Info(node: node, name: try node.displayName())
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
            if let person = info.person {
                Console.out(
                    """
                    person       \(person)
                    linked       this device is linked to \(info.name)'s person key; its own key is above
                    """)
            }
            if let removed = info.removed { Console.out("removed      " + TextSanitizer.line(removed)) }
        }
    }
}
