import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode

extension Confab {
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Search message text, conversation titles and participant names.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "Words to find (each matches as a prefix).")
        var words: [String]

        @Option(help: "At most this many message matches.")
        var limit = 50

        func validate() throws {
            if words.joined().trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("give something to search for")
            }
        }

        func run() throws {
            let hits = try global.open().store.search(words.joined(separator: " "), limit: limit)
            if output.json {
                try JSONOutput.print(hits.map(JSONOutput.searchResult))
                return
            }
            guard !hits.isEmpty else {
                Console.out("Nothing matches \"\(words.joined(separator: " "))\".")
                return
            }
            for hit in hits {
                // Titles, names and text come from the network: one sanitised line each.
                let title = TextSanitizer.line(hit.conversation.displayName)
                let place = Style.bold(title) + Style.dim(" (\(hit.conversation.id.shortHex))")
                if let message = hit.message {
                    let when = HumanOutput.timestamps.short(message.sentAt)
                    let text = TextSanitizer.line(hit.snippet ?? message.text ?? "")
                    let snippet = Preview.line(text, mine: false, limit: 200)
                    let author = TextSanitizer.line(message.authorName)
                    Console.out("\(place)  \(Style.dim(when))\n   \(author): \(snippet)")
                } else {
                    Console.out("\(place)  \(Style.dim("conversation"))")
                }
            }
        }
    }
}
