import ArgumentParser
import ConfabClient
import ConfabNode
import ConfabWire

extension Confab {
    struct NetworkShow: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show which network key \"confab up\" would use, where it comes from, and its tag.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Option(help: ArgumentHelp("Show what this key would give (as \"confab up --network-key\").", valueName: "KEY"))
        var networkKey: String?

        @Flag(help: "Also print the key itself (it is a secret: anyone with it can join the network).")
        var reveal = false

        struct Info: Encodable {
            /// flag, environment, config or default.
            let source: String
            let tag: String
            let isDefault: Bool
            let file: String?
            let key: String?

            init(_ setting: NetworkKeySetting, directory: DataDirectory, reveal: Bool) {
                source = setting.source.rawValue
                tag = setting.tag
                isDefault = setting.key == .default
                file = setting.source == .config ? directory.networkKeyFile.path : nil
                key = reveal ? setting.key.hex : nil
            }
        }

        func run() throws {
            let directory = global.directory
            let setting = try NetworkKeySetting.resolve(flag: networkKey, directory: directory)
            let info = Info(setting, directory: directory, reveal: reveal)
            if output.json {
                try JSONOutput.print(info)
                return
            }
            let origin: String
            switch setting.source {
            case .flag: origin = "the --network-key option"
            case .environment: origin = "the environment (CONFAB_NETWORK_KEY)"
            case .config: origin = "the config file \(directory.networkKeyFile.path)"
            case .default: origin = "the default (no flag, no CONFAB_NETWORK_KEY, no network.key)"
            }
            Console.out(
                info.isDefault
                    ? "network  Confab's public default network — anyone running Confab can join it"
                    : "network  private")
            Console.out("tag      \(setting.tag)  (beacons carry it; compare it to check two nodes agree)")
            Console.out("source   \(origin)")
            Console.out(
                reveal ? "key      \(setting.key.hex)" : "key      hidden (add --reveal to print it)")
        }
    }
}
