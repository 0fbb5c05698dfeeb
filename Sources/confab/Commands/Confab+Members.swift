import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import Foundation

extension Confab {
    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a conversation's members, its admin, and who left or was removed.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A conversation id prefix, or a peer's name (their most recent thread).")
        var conversation: String

        func run() async throws {
            let local = try global.open()
            let id = try Resolver(store: local.store).conversation(conversation)
            let list = try local.store.members(of: id)
            if output.json {
                try JSONOutput.print(JSONOutput.members(list))
                return
            }
            for member in list.members {
                let name = member.id == local.me ? "You" : TextSanitizer.line(member.name)
                Console.out("\(name)  \(member.id.shortHex)\(member.id == list.admin ? "  (admin)" : "")")
            }
            for member in list.former {
                let name = member.id == local.me ? "You" : TextSanitizer.line(member.name)
                Console.out(Style.dim("\(name)  \(member.id.shortHex)  (no longer a member)"))
            }
            if !list.includesMe { Console.err("You are no longer a member of this conversation.") }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add people to a group conversation.",
            discussion: """
                Any member can add. The group moves to a new key that the added people \
                hold; by default they read only what is written from now on. With \
                --history they also get the earlier keys and can read the history.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A conversation id prefix, or a peer's name (their most recent thread).")
        var conversation: String

        @Argument(help: "Peers to add: names, keys or unique key prefixes.")
        var peers: [String]

        @Flag(help: "Let the added people read the conversation's history too.")
        var history = false

        func validate() throws {
            if peers.isEmpty { throw ValidationError("name at least one peer to add") }
        }

        func run() async throws {
            try await change(conversation, adding: true, peers, history: history, global: global, output: output)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove people from a group conversation (the admin only).",
            discussion: """
                The group moves to a new key that the removed people do not hold: they keep \
                what they had, and read nothing written after. Only the conversation's admin \
                (its creator, or after the creator left, the longest-standing member) can \
                remove others; anyone can leave (confab leave).
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A conversation id prefix, or a peer's name (their most recent thread).")
        var conversation: String

        @Argument(help: "Members to remove: names, keys or unique key prefixes.")
        var peers: [String]

        func validate() throws {
            if peers.isEmpty { throw ValidationError("name at least one member to remove") }
        }

        func run() async throws {
            try await change(conversation, adding: false, peers, history: false, global: global, output: output)
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Leave a group conversation or a room.",
            discussion: """
                The others are told, and nothing written after reaches you. What you hold \
                stays on this machine (confab delete removes it). A room (#NAME) is removed \
                from this machine altogether; join it again to see what its members hold.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A conversation id prefix, or a peer's name (their most recent thread).")
        var conversation: String

        func run() async throws {
            let local = try global.open()
            let id = try Resolver(store: local.store).conversation(conversation)
            let room = try local.store.isRoom(id)
            let done = try await local.messenger().leave(id)
            if room, !output.json {
                Console.out("You left the room (\(id.shortHex)); it is no longer on this machine.")
                return
            }
            try report(done, output: output, local: local, "You left")
        }
    }
}

/// `confab add` and `confab remove`: what was typed resolved here, the change written
/// through the node (or the store), and what was done said.
private func change(
    _ conversation: String, adding: Bool, _ peers: [String], history: Bool, global: GlobalOptions,
    output: OutputOptions
) async throws {
    let local = try global.open()
    let resolver = Resolver(store: local.store)
    let id = try resolver.conversation(conversation)
    let keys = try peers.map(resolver.peer)
    let done = try await local.messenger().changeMembers(
        of: id, add: adding ? keys : [], remove: adding ? [] : keys, shareHistory: history)
    try report(done, output: output, local: local, "\(adding ? "Added" : "Removed") \(try names(keys, local: local))")
}

private func names(_ keys: [NodeID], local: Profile) throws -> String {
    try keys.map { key in try local.store.peer(key).map { TextSanitizer.line($0.name) } ?? key.shortHex }
        .joined(separator: ", ")
}

private func report(_ done: MembershipChange, output: OutputOptions, local: Profile, _ what: String) throws {
    if output.json {
        try JSONOutput.print(done)
    } else {
        Console.out("\(what) (\(done.conversation.shortHex)) — sending…")
    }
}
