import ArgumentParser
import ConfabClient
import ConfabNode
import ConfabStore

extension Confab {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List conversations: pinned first, then most recent, with unread counts.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Flag(help: "Show archived conversations instead.")
        var archived = false

        @Flag(help: "Show archived and unarchived conversations.")
        var all = false

        func run() throws {
            let store = try global.open().store
            let filter: ConversationFilter = all ? .all : (archived ? .archived : .inbox)
            let list = try store.conversations(filter)
            if output.json {
                try JSONOutput.print(list.map(JSONOutput.conversation))
                return
            }
            guard !list.isEmpty else {
                Console.out(
                    archived ? "No archived conversations." : "No conversations yet — start one with `confab new NAME`")
                return
            }
            for line in HumanOutput.conversationRows(list, width: Console.width) { Console.out(line) }
        }
    }
}
