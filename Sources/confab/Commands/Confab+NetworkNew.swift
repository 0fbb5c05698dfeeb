import ArgumentParser
import ConfabClient
import ConfabNode
import ConfabWire

extension Confab {
    struct NetworkNew: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new", abstract: "Print a fresh random network key for a private network.")

        @OptionGroup var output: OutputOptions

        struct Info: Encodable {
            let key: String
            let tag: String
        }

        func run() throws {
            let key = NetworkKey.random()
            if output.json {
                try JSONOutput.print(Info(key: key.hex, tag: key.tagHex))
                return
            }
            Console.out(
                """
                \(key.hex)

                A new private network (tag \(key.tagHex)). Give this key to the people who should be \
                on it, out of band (in person, or a channel you trust) — like a Wi-Fi password: anyone \
                who has it can join, and nodes without it neither see nor reach yours.
                Each of them, and you, then runs one of:
                  confab network use KEY        remember it in the data directory (used by every "confab up")
                  confab up --network-key KEY   for one run
                  CONFAB_NETWORK_KEY=KEY confab up
                """)
        }
    }
}
