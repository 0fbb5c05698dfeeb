import ArgumentParser
import ConfabModel
import ConfabNode
import ConfabStore

extension Confab {
    struct Send: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a message to a peer or a conversation.",
            discussion: """
                The text comes from the arguments, else from standard input. With --lines, each \
                input line is its own message, saved as soon as it is read. A peer with no \
                conversation yet gets a new one. Messages are saved locally first and show \
                "sending…" until a peer or relay takes them.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "A peer (name, key or key prefix) or a conversation (id prefix).")
        var target: String

        @Argument(help: "The message; read from standard input when omitted.")
        var text: [String] = []

        @Flag(help: "Send each line of standard input as its own message.")
        var lines = false

        func validate() throws {
            if lines && !text.isEmpty { throw ValidationError("--lines reads standard input; give no message text") }
        }

        func run() throws {
            let node = try global.open()
            var sender = try MessageSender(node: node, target: target)
            if lines {
                var count = 0
                while let line = readLine() {
                    guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
                    try report(try sender.send(line))
                    count += 1
                }
                if !output.json { Console.out("\(count) message\(count == 1 ? "" : "s") to \(sender.name) — sending…") }
                return
            }
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
            let sent = try sender.send(body)
            if output.json {
                try report(sent)
            } else {
                Console.out("To \(sender.name) (\(sent.entry.conversationID.shortHex)) — sending…")
            }
        }

        private func report(_ sent: MessageSender.Sent) throws {
            guard output.json else { return }
            try JSONOutput.print(sent.json)
        }
    }
}

/// Sends to a resolved target, creating the conversation with the first message when the
/// target is a peer we have no thread with yet.
struct MessageSender {
    struct Sent {
        let entry: Entry
        let created: Bool

        struct JSON: Encodable {
            let conversation: String
            let seq: UInt64
            let status: String
            let created: Bool
        }

        var json: JSON {
            JSON(
                conversation: entry.conversationID.hex, seq: entry.seq, status: DeliveryStatus.sending.rawValue,
                created: created)
        }
    }

    let store: ConfabStore
    private(set) var conversation: ConversationID?
    private let newWith: NodeID?
    let name: String

    init(node: LocalNode, target: String) throws {
        store = node.store
        let resolver = Resolver(store: node.store)
        let id: ConversationID
        do {
            id = try resolver.conversation(target)
        } catch let error as ResolveError {
            // A known peer with no thread yet: the first message starts one. When the target
            // is neither, the peer error (listing known peers) is the helpful one.
            _ = error
            let peer = try resolver.peer(target)
            conversation = nil
            newWith = peer
            name = try node.store.peer(peer)?.name ?? peer.shortHex
            return
        }
        conversation = id
        newWith = nil
        name = try node.store.conversation(id)?.displayName ?? target
    }

    mutating func send(_ text: String) throws -> Sent {
        if let conversation {
            return Sent(entry: try store.sendMessage(text, to: conversation), created: false)
        }
        let created = try store.createConversation(with: [newWith!], firstMessage: text)
        conversation = created.id
        return Sent(entry: created.message!, created: true)
    }
}
