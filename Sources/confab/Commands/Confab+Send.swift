import ArgumentParser
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
                they leave at once. Exit codes: 0 saved (and, with --wait, delivered), 1 failure, \
                2 usage, 3 not delivered within --timeout.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A peer (name, key or key prefix) or a conversation (id prefix).")
        var target: String

        @Argument(help: "The message; read from standard input when omitted.")
        var text: [String] = []

        @Flag(help: "Send each line of standard input as its own message.")
        var lines = false

        @Flag(help: "Wait until every other participant's node has the message (delivered).")
        var wait = false

        @Option(help: "With --wait: give up after this many seconds (exit code 3).")
        var timeout: Double = 30

        func validate() throws {
            if lines && !text.isEmpty { throw ValidationError("--lines reads standard input; give no message text") }
            if timeout <= 0 { throw ValidationError("--timeout must be positive") }
        }

        func run() async throws {
            let node = try global.open()
            var channel = try SendChannel(node: node, target: target)
            var last: ControlProtocol.Sent?
            if lines {
                var count = 0
                while let line = readLine() {
                    guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
                    last = try await channel.send(line)
                    if output.json { try JSONOutput.print(last!) }
                    count += 1
                }
                if !output.json {
                    Console.out(
                        "\(count) message\(count == 1 ? "" : "s") to \(channel.name) — \(channel.viaNode ? "sent to the node" : "sending…")"
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
                let sent = try await channel.send(body)
                last = sent
                if output.json {
                    try JSONOutput.print(sent)
                } else {
                    Console.out("To \(channel.name) (\(sent.conversation.prefix(8))) — sending…")
                }
            }
            if wait, let last { try await waitForDelivery(last, store: node.store, viaNode: channel.viaNode) }
        }

        /// Polls the store: statuses only move forward, so no event can be missed.
        private func waitForDelivery(_ sent: ControlProtocol.Sent, store: ConfabStore, viaNode: Bool) async throws {
            guard viaNode || ControlClient.mightBeRunning(global.directory) else {
                Console.err(
                    "not delivered: no node is running to send it (start \"confab up\"); it waits in the outbox")
                throw ExitCode(3)
            }
            let conversation = ConversationID(hex: sent.conversation)!
            let deadline = Date().addingTimeInterval(timeout)
            var status = DeliveryStatus.sending
            while Date() < deadline {
                status = try store.deliveryStatus(conversation, seq: sent.seq) ?? .sending
                if status >= .delivered {
                    if !output.json { Console.out(HumanOutput.label(status)) }
                    return
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            Console.err(
                "not delivered within \(Int(timeout)) s (status: \(HumanOutput.label(status))); it stays queued and "
                    + "will be delivered when the recipients' nodes are reachable")
            throw ExitCode(3)
        }
    }
}

/// Sends through the running node when there is one (so the message leaves at once), else
/// straight into the store's outbox.
struct SendChannel {
    private var direct: MessageSender
    private let directory: DataDirectory
    private let target: String
    private(set) var viaNode: Bool
    /// For people to read: a peer's name or a title, from the network, so sanitised.
    var name: String { TextSanitizer.line((try? direct.name()) ?? target) }

    init(node: LocalNode, target: String) throws {
        direct = try MessageSender(store: node.store, target: target)
        directory = node.directory
        self.target = target
        viaNode = ControlClient.mightBeRunning(node.directory)
    }

    mutating func send(_ text: String) async throws -> ControlProtocol.Sent {
        if viaNode {
            do {
                let sent = try await ControlClient.request(
                    directory, method: "send", params: ["target": target, "text": text], as: ControlProtocol.Sent.self)
                // Later lines go to the same thread even if this one created it.
                if sent.created { direct = try MessageSender(store: direct.store, target: sent.conversation) }
                return sent
            } catch let error as NodeError where error.isNotRunning {
                viaNode = false
            }
        }
        let sent = try direct.send(text)
        return ControlProtocol.Sent(
            conversation: sent.entry.conversationID.hex, seq: sent.entry.seq, status: DeliveryStatus.sending.rawValue,
            created: sent.created)
    }
}
