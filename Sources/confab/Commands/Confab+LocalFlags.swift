import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore

/// archive, unarchive, pin, unpin, mute, unmute, mark-read, mark-unread: each changes one local flag of
/// one conversation, so they share this shape.
protocol ConversationFlagCommand: AsyncParsableCommand {
    var global: GlobalOptions { get }
    var output: OutputOptions { get }
    var conversation: String { get }
    static var doneMessage: String { get }
    func apply(to id: ConversationID, with messenger: any Messenger) async throws
}

extension ConversationFlagCommand {
    func run() async throws {
        let node = try global.open()
        let id = try Resolver(store: node.store).conversation(conversation)
        let messenger = try await node.messenger()
        try await apply(to: id, with: messenger)
        await messenger.close()
        guard let summary = try node.store.conversation(id) else { return }
        if output.json {
            try JSONOutput.print(JSONOutput.conversation(summary))
        } else {
            Console.out("\(Self.doneMessage) \(TextSanitizer.line(summary.displayName)) (\(id.shortHex))")
        }
    }
}

private let conversationHelp = ArgumentHelp("A conversation id prefix, or a peer's name (their most recent thread).")

extension Confab {
    struct Archive: ConversationFlagCommand {
        static let configuration = CommandConfiguration(abstract: "Hide a conversation from the list.")
        static let doneMessage = "Archived"
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: conversationHelp) var conversation: String
        func apply(to id: ConversationID, with messenger: any Messenger) async throws {
            try await messenger.setFlag(.archived, true, on: id)
        }
    }

    struct Unarchive: ConversationFlagCommand {
        static let configuration = CommandConfiguration(abstract: "Bring an archived conversation back.")
        static let doneMessage = "Unarchived"
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: conversationHelp) var conversation: String
        func apply(to id: ConversationID, with messenger: any Messenger) async throws {
            try await messenger.setFlag(.archived, false, on: id)
        }
    }

    struct Pin: ConversationFlagCommand {
        static let configuration = CommandConfiguration(abstract: "Keep a conversation at the top of the list.")
        static let doneMessage = "Pinned"
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: conversationHelp) var conversation: String
        func apply(to id: ConversationID, with messenger: any Messenger) async throws {
            try await messenger.setFlag(.pinned, true, on: id)
        }
    }

    struct Unpin: ConversationFlagCommand {
        static let configuration = CommandConfiguration(abstract: "Unpin a conversation.")
        static let doneMessage = "Unpinned"
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: conversationHelp) var conversation: String
        func apply(to id: ConversationID, with messenger: any Messenger) async throws {
            try await messenger.setFlag(.pinned, false, on: id)
        }
    }

    struct MarkRead: ConversationFlagCommand {
        static let configuration = CommandConfiguration(
            commandName: "mark-read", abstract: "Mark a conversation read (and send a read receipt).")
        static let doneMessage = "Marked read:"
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: conversationHelp) var conversation: String
        func apply(to id: ConversationID, with messenger: any Messenger) async throws {
            try await messenger.markRead(id)
        }
    }

    struct MarkUnread: ConversationFlagCommand {
        static let configuration = CommandConfiguration(
            commandName: "mark-unread", abstract: "Mark a conversation unread, as a reminder.")
        static let doneMessage = "Marked unread:"
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: conversationHelp) var conversation: String
        func apply(to id: ConversationID, with messenger: any Messenger) async throws {
            try await messenger.setFlag(.markedUnread, true, on: id)
        }
    }

    struct Mute: ConversationFlagCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mute a conversation: its messages do not count in the total unread.")
        static let doneMessage = "Muted"
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: conversationHelp) var conversation: String
        func apply(to id: ConversationID, with messenger: any Messenger) async throws {
            try await messenger.setFlag(.muted, true, on: id)
        }
    }

    struct Unmute: ConversationFlagCommand {
        static let configuration = CommandConfiguration(abstract: "Unmute a conversation.")
        static let doneMessage = "Unmuted"
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: conversationHelp) var conversation: String
        func apply(to id: ConversationID, with messenger: any Messenger) async throws {
            try await messenger.setFlag(.muted, false, on: id)
        }
    }
}
