import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode

extension Confab {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stream messages, status changes and peers coming and going, as they happen.",
            discussion:
                "Needs a running node (confab up). With --json, one JSON object per line (schema in docs/commands.md).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "Only this conversation (id prefix or peer name).")
        var conversation: String?

        func run() async throws {
            let local = try global.open()
            let filter = try conversation.map { try Resolver(store: local.store).conversation($0) }
            let messenger = try await AttachedMessenger(local: local)
            for await event in try await messenger.wireEvents(for: filter) {
                if output.json {
                    try JSONOutput.print(event)
                } else if event.event != .changed, event.event != .typing || event.active == true {
                    // A typing start is worth a line, its stop is not.
                    Console.out(HumanOutput.eventLine(event))
                }
            }
        }
    }
}
