import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import ConfabTUI
import Foundation

@main
struct Confab: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "confab",
        abstract: "Peer-to-peer chat for machines on one LAN — no server, no account, no internet.",
        discussion: """
            Every command works offline: what you send waits in the outbox ("sending…") until a \
            peer is reachable. Exit codes: 0 ok, 1 failure, 2 usage error.
            """,
        version: Release.description,
        subcommands: [
            Chat.self, Init.self, WhoAmI.self, Devices.self, Rename.self, Up.self, Open.self, Relay.self, Status.self,
            Resync.self,
            Peers.self,
            New.self,
            Send.self, SendFile.self, Files.self, Save.self, Edit.self, Unsend.self, React.self, Watch.self,
            Members.self, Add.self, Remove.self, Leave.self, Rooms.self, Join.self,
            List.self,
            History.self, Search.self,
            Archive.self, Unarchive.self, Pin.self, Unpin.self, Mute.self, Unmute.self, MarkRead.self, MarkUnread.self,
            Delete.self,
            Verify.self, Block.self, Unblock.self, Network.self, Doctor.self, Typing.self,
        ]
    )

    @OptionGroup var global: GlobalOptions

    /// With no subcommand: the full-screen chat on a terminal; for a pipe, the
    /// conversation list or how to get started.
    func run() async throws {
        if Terminal.capabilities().fullScreen {
            // Parsed, not built: every option of `chat` must hold its default.
            var chat = try Chat.parse([])
            chat.global = global
            try await chat.run()
            return
        }
        let directory = global.directory
        guard IdentityFile.exists(at: directory.identityFile) else {
            Console.out(
                """
                Welcome to Confab.
                Create your identity first:  confab init --name YOUR_NAME
                Then add a peer:             confab peers add KEY --name NAME
                and say hi:                  confab send NAME "hi"
                Data directory: \(directory.path)
                """)
            return
        }
        var list = try List.parse([])
        list.global = global
        try list.run()
        Console.out("\nRun \"confab --help\" for every command.")
    }

    /// Exit codes are part of the interface for scripts: 0 ok, 1 failure, 2 usage.
    static func main() async {
        // Everything Confab writes (keys, the database and its WAL) is private.
        umask(0o077)
        do {
            let commands = configuration.subcommands.map { $0._commandName }
            let arguments = Array(CommandLine.arguments.dropFirst())
            if let unknown = UnknownCommand.find(in: arguments, commands: commands)
                ?? UnknownCommand.find(
                    in: arguments, group: Devices._commandName,
                    commands: Devices.configuration.subcommands.map { $0._commandName })
            {
                Console.err("Error: \(unknown)")
                Foundation.exit(2)
            }
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { Console.out(message) }
                Foundation.exit(0)
            }
            // Errors may quote names and titles from the network; whatever a message
            // carries, it cannot drive the terminal.
            if !message.isEmpty { Console.err(TextSanitizer.lines(message).joined(separator: "\n")) }
            Foundation.exit(code == .validationFailure ? 2 : (code.rawValue == 0 ? 1 : code.rawValue))
        }
    }
}
