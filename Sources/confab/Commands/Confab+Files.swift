import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

extension Confab {
    struct Files: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List file messages: what each is and how much of it is here.",
            discussion: """
                Files up to the automatic-download limit (100 MB unless set) are fetched as \
                soon as they arrive; larger ones wait until accepted with "confab save ID". \
                Set the limit with --auto-download SIZE (e.g. 500MB, 2GiB; 0 fetches nothing \
                by itself).
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A conversation id prefix, or a peer's name (their most recent thread); all when omitted.")
        var conversation: String?

        @Option(help: "Set the automatic-download limit (e.g. 100MB).")
        var autoDownload: String?

        func run() async throws {
            let local = try global.open()
            if let autoDownload {
                guard let bytes = ByteSize.parse(autoDownload) else {
                    throw CLIError("\"\(autoDownload)\" is not a size (try 100MB, 2GiB or a number of bytes)")
                }
                // A running node reads it again within 5 s.
                try local.store.setAutoDownloadLimit(UInt64(bytes))
                if !output.json { Console.out("automatic-download limit: \(ByteSize.format(bytes))") }
                if conversation == nil { return }
            }
            let id = try conversation.map { try Resolver(store: local.store).conversation($0) }
            let files = try local.store.files(in: id)
            if output.json {
                try JSONOutput.print(files.map(JSONOutput.file))
                return
            }
            guard !files.isEmpty else {
                Console.out(
                    "No files\(id == nil ? "" : " in this conversation") yet. Send one: confab send-file NAME PATH")
                return
            }
            for file in files {
                let name = (try? local.store.peer(file.author))??.name
                let from = file.author == local.me ? "you" : TextSanitizer.line(name ?? file.author.shortHex)
                let state = file.author == local.me ? "sent" : file.stateText
                Console.out("\(Style.dim(file.shortID))  \(file.summary)  \(Style.dim("from " + from))")
                Console.out("              \(state)")
            }
        }
    }
}
