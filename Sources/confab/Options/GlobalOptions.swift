import ArgumentParser
import ConfabClient
import ConfabNode

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .customLong("data"),
        help: ArgumentHelp(
            "Data directory (default: $CONFAB_HOME, else ~/.local/share/confab).", valueName: "DIR"))
    var dataPath: String?

    var directory: DataDirectory { DataDirectory.resolve(option: dataPath) }

    /// Opens the identity and store; errors carry what to do next.
    func open() throws -> Profile {
        try Profile.open(directory)
    }
}

/// `--json`, for commands that print data.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON instead of text (schema in docs/commands.md).")
    var json = false
}
