import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

extension Confab {
    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a message to a peer or a conversation.",
            discussion: """
                The text comes from the arguments, else from standard input. With --lines, each \
                input line is its own message, saved as soon as it is read. A peer with no \
                conversation yet gets a new one. Messages are saved locally first and show \
                "sending…" until a peer or relay takes them; with a node running (confab up) \
                they leave at once. With --reply-to, the message answers an earlier one of the \
                conversation (anyone's), which every participant sees quoted above it. `@name` \
                (a member's name as this node knows it, or a key prefix) mentions that member, \
                who is notified even when the conversation is muted. Exit codes: 0 saved (and, \
                with --wait, delivered), 1 failure, 2 usage, 3 not delivered within --timeout.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A peer (name, key or key prefix), a conversation (id prefix or title) or a room (#NAME).")
        var target: String

        @Argument(help: "The message; read from standard input when omitted.")
        var text: [String] = []

        @Flag(help: "Send each line of standard input as its own message.")
        var lines = false

        @Flag(help: "Wait until every other participant's node has the message (delivered).")
        var wait = false

        @Option(help: "With --wait: give up after this many seconds (exit code 3).")
        var timeout: Double = 30

        @Option(
            name: .customLong("reply-to"),
            help: "Reply to this message: its id from `history --json`, AUTHOR/SEQ, or \"last\".")
        var replyTo: String?

        func validate() throws {
            if lines && !text.isEmpty { throw ValidationError("--lines reads standard input; give no message text") }
            if timeout <= 0 { throw ValidationError("--timeout must be positive") }
            if lines && replyTo != nil {
                throw ValidationError("--reply-to answers with one message; not with --lines")
            }
        }

        func run() async throws {
            let local = try global.open()
            let resolver = Resolver(store: local.store)
            let resolved = try resolver.namedMessageTarget(target)
            var destination = resolved.target
            let name = resolved.name
            var reply: MessageRef?
            if let replyTo {
                guard case .conversation(let id) = destination else {
                    throw CLIError("there is no conversation with \(name) yet, so nothing to reply to")
                }
                reply = try resolver.message(replyTo, in: id)
            }
            let messenger = try await local.messenger()
            let viaNode = messenger.reachesNode
            // Subscribed before sending, so no status change can slip between the two.
            let events = wait && viaNode ? try await messenger.events(for: nil) : nil
            var last: SentMessage?
            if lines {
                var count = 0
                let input = StandardInputLines()
                while let batch = await input.next() {
                    var texts = batch.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
                    guard !texts.isEmpty else { continue }
                    var sent: [SentMessage] = []
                    if case .newConversation = destination {
                        // The first line starts the thread; the rest follow into it.
                        let first = try await messenger.send(texts.removeFirst(), to: destination)
                        destination = .conversation(first.conversation)
                        sent.append(first)
                    }
                    if case .conversation(let id) = destination, !texts.isEmpty {
                        sent += try await messenger.send(texts, to: id)
                    }
                    if output.json { for ack in sent { try JSONOutput.print(ack) } }
                    last = sent.last ?? last
                    count += sent.count
                }
                if !output.json {
                    Console.out(
                        "\(count) message\(count == 1 ? "" : "s") to \(name) — \(viaNode ? "sent to the node" : "sending…")"
                    )
                }
            } else {
                let body: String
                if text.isEmpty {
                    var read: [String] = []
                    while let line = readLine(strippingNewline: false) { read.append(line) }
                    body = read.joined().trimmingCharacters(in: .newlines)
                } else {
                    body = text.joined(separator: " ")
                }
                guard !body.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw CLIError("the message is empty — give text as arguments or on standard input")
                }
                let sent = try await messenger.send(body, to: destination, replyTo: reply)
                last = sent
                if output.json {
                    try JSONOutput.print(sent)
                } else {
                    Console.out("To \(name) (\(sent.conversation.shortHex)) — sending…")
                }
            }
            guard wait, let last else { return }
            guard let events else {
                Console.err(
                    "not delivered: no node is running to send it (start \"confab up\"); it waits in the outbox")
                throw ExitCode(3)
            }
            try await waitForDelivery(last, events: events, store: local.store)
        }

        /// Waits for the status event that says delivered. Statuses only move forward, and
        /// the events were subscribed before sending: the store's status, read once after
        /// sending, and the events after it miss nothing.
        private func waitForDelivery(
            _ sent: SentMessage, events: AsyncStream<NodeEvent>, store: ConfabStore
        ) async throws {
            let status = try await Deadline.within(timeout) { () async throws -> DeliveryStatus? in
                let current = try store.deliveryStatus(sent.conversation, seq: sent.seq) ?? .sending
                if current >= .delivered { return current }
                for await event in events {
                    if case .status(sent.conversation, sent.seq, let status) = event, status >= .delivered {
                        return status
                    }
                }
                return nil
            }
            if let status {
                if !output.json { Console.out(HumanOutput.label(status)) }
                return
            }
            let now = (try? store.deliveryStatus(sent.conversation, seq: sent.seq)) ?? .sending
            Console.err(
                "not delivered within \(Int(timeout)) s (status: \(HumanOutput.label(now))); it stays queued and "
                    + "will be delivered when the recipients' nodes are reachable")
            throw ExitCode(3)
        }
    }
}
