import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

extension Confab {
    struct SendFile: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "send-file",
            abstract: "Send files, or folders kept as a tree, to a peer or a conversation.",
            discussion: """
                Each file is encrypted into this machine's store and sent as a file message; \
                recipients' nodes fetch its content from any node that holds it (this one, \
                another recipient, a relay) and check every piece. A folder is sent file by \
                file, each placed at its path inside the folder. Links inside a folder are not \
                followed. Exit codes: 0 sent (and, with --wait, held whole by every recipient), \
                1 failure, 2 usage, 3 not every recipient held every file within --timeout.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A peer (name, key or key prefix), a conversation (id prefix or title) or a room (#NAME).")
        var target: String

        @Argument(help: "Files and folders to send.")
        var paths: [String]

        @Flag(help: "Wait until every other participant's node holds every file whole.")
        var wait = false

        @Option(help: "With --wait: give up after this many seconds (exit code 3).")
        var timeout: Double = 300

        func validate() throws {
            if paths.isEmpty { throw ValidationError("name at least one file or folder to send") }
            if timeout <= 0 { throw ValidationError("--timeout must be positive") }
        }

        func run() async throws {
            let local = try global.open()
            let resolver = Resolver(store: local.store)
            let resolved = try resolver.namedMessageTarget(target)
            var destination = resolved.target
            let name = resolved.name
            let (files, skipped) = try FileTree.expand(paths)
            for link in skipped { Console.err("skipping \(link): a link inside a folder is not followed") }
            guard !files.isEmpty else { throw CLIError("nothing to send: the folders named hold no files") }
            let messenger = try await local.messenger()
            let viaNode = messenger.reachesNode
            let events = wait && viaNode ? try await messenger.events(for: nil) : nil
            var sent: [SentFile] = []
            for file in files {
                let one = try await messenger.sendFile(at: file.path, folder: file.folder, to: destination)
                destination = .conversation(one.conversation)
                sent.append(one)
                if output.json {
                    try JSONOutput.print(one)
                } else {
                    let place = file.folder.isEmpty ? "" : " (in \(file.folder))"
                    Console.out(
                        "\(one.name)\(place) · \(ByteSize.format(Int(clamping: one.size))) → \(name) — file \(String(one.file.hex.prefix(12)))"
                    )
                }
            }
            guard wait, let last = sent.last else { return }
            guard let events else {
                Console.err(
                    "not delivered: no node is running to send it (start \"confab up\"); the files wait in the outbox")
                throw ExitCode(3)
            }
            let recipients = Set(try local.store.participants(of: last.conversation)).subtracting([local.me])
            try await waitUntilHeld(sent, by: recipients, events: events, store: local.store)
        }

        /// Waits for each recipient's node to say it holds each file whole (its own word, in
        /// a session with this node: nothing another peer says about it counts).
        private func waitUntilHeld(
            _ sent: [SentFile], by recipients: Set<NodeID>, events: AsyncStream<NodeEvent>, store: ConfabStore
        ) async throws {
            let missing = Set(sent.flatMap { file in recipients.map { "\(file.seq)/\($0.hex)" } })
            let conversation = sent[0].conversation
            let done = try await Deadline.within(timeout) { () async -> Bool? in
                var remaining = missing
                for await event in events {
                    guard case .filePeer(conversation, let seq, let peer, _, true) = event else { continue }
                    remaining.remove("\(seq)/\(peer.hex)")
                    if remaining.isEmpty { return true }
                }
                return nil
            }
            if done == true {
                if !output.json { Console.out("every recipient holds \(sent.count == 1 ? "it" : "them all")") }
                return
            }
            Console.err(
                "not every recipient held the file\(sent.count == 1 ? "" : "s") within \(Int(timeout)) s; this node "
                    + "goes on serving \(sent.count == 1 ? "it" : "them") while it runs, and relays carry \(sent.count == 1 ? "it" : "them") too"
            )
            throw ExitCode(3)
        }
    }
}
