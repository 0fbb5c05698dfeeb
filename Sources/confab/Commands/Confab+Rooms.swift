import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode

extension Confab {
    struct Rooms: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List rooms: those joined here and those the peers in session say they joined.",
            discussion: """
                A room is a conversation anyone on the network can join by its name. On the \
                default network, anyone on the LAN can read it.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let rooms = try await global.open().messenger().perform(Operations.Rooms())
            if output.json {
                try JSONOutput.print(rooms)
                return
            }
            guard !rooms.isEmpty else {
                Console.out("No rooms yet — join one with `confab join general`")
                return
            }
            for room in rooms {
                let joined = room.joined ? "joined" : "not joined"
                let peers = room.peers == 1 ? "1 peer" : "\(room.peers) peers"
                Console.out("\(room.room)  \(joined), \(peers) in session in it")
            }
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join a room by its name, such as general.",
            discussion: """
                Anyone on your network who joins the same name is in the same room; what its \
                members hold of its history arrives when you join. Leave with `confab leave #NAME`. \
                On the default network, anyone on the LAN can read a room.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "The room's name (a leading # is optional).")
        var room: String

        func run() async throws {
            guard let name = RoomName(typed: room) else {
                throw CLIError("\"\(room)\" is no room name: \(RoomName.rule)")
            }
            let joined = try await global.open().messenger().perform(Operations.Join(name))
            if output.json {
                try JSONOutput.print(joined)
            } else {
                Console.out("Joined \(name) (\(joined.conversation.shortHex)) — write with `confab send '\(name)' …`")
            }
        }
    }
}
