import ArgumentParser
import ConfabModel
import ConfabNode

extension Confab {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stream messages, status changes and peers coming and going, as they happen.",
            discussion:
                "Needs a running node (confab up). With --json, one JSON object per line (schema in the README).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "Only this conversation (id prefix or peer name).")
        var conversation: String?

        func run() async throws {
            var filter: String?
            if let conversation {
                filter = try Resolver(store: try global.open().store).conversation(conversation).hex
            }
            let json = output.json
            try await ControlClient.watch(global.directory, conversation: filter) { event in
                if json {
                    try JSONOutput.print(event)
                } else {
                    Console.out(HumanOutput.eventLine(event))
                }
                return true
            }
        }
    }
}
