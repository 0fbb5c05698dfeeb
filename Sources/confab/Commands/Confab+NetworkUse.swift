import ArgumentParser
import ConfabClient
import ConfabNode
import ConfabWire

extension Confab {
    struct NetworkUse: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "use",
            abstract: "Remember a network key in the data directory (network.key), or go back to the default.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "The network key: 64 hex characters or base64 (from \"confab network new\").")
        var key: String?

        @Flag(name: .customLong("default"), help: "Forget the remembered key: use Confab's public default network.")
        var useDefault = false

        func validate() throws {
            switch (key, useDefault) {
            case (nil, false):
                throw ValidationError("give a network key (from \"confab network new\"), or --default")
            case (.some, true):
                throw ValidationError("give either a network key or --default, not both")
            case (.some(let text), false):
                guard NetworkKey(text: text) != nil else {
                    throw ValidationError(
                        "that is not a network key: it must be 32 bytes as 64 hex characters or base64 "
                            + "(\"confab network new\" makes one)")
                }
            case (nil, true):
                break
            }
        }

        func run() throws {
            let directory = global.directory
            let file = directory.networkKeyFile
            if let key, let parsed = NetworkKey(text: key) {
                try directory.create()
                try NetworkKeyFile.save(parsed, to: file)
            } else {
                try NetworkKeyFile.remove(at: file)
            }
            let setting = try NetworkKeySetting.resolve(flag: nil, directory: directory)
            if output.json {
                try JSONOutput.print(NetworkShow.Info(setting, directory: directory, reveal: false))
                return
            }
            Console.out(
                useDefault
                    ? "This node will use Confab's public default network (tag \(NetworkKey.default.tagHex))."
                    : "Saved to \(file.path). This node will join the private network \(setting.key.tagHex).")
            if setting.source == .environment {
                Console.out("Note: CONFAB_NETWORK_KEY is set and takes precedence over \(file.lastPathComponent).")
            }
            if ControlServer.mightBeRunning(directory) {
                Console.out("A node is running here: restart it (\"confab up\") to switch networks.")
            }
        }
    }
}
