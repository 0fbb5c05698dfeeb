import ConfabClient
import ConfabModel
import ConfabStore
import Foundation

/// /reply and /react: which message they are for is the first word when it names one
/// (`^N`, the Nth newest message of the open conversation, or an id as `history --json`
/// prints it), else the newest message from someone else.
extension PlainChat {
    func reply(_ argument: String) async throws {
        guard let open = openOrSay() else { return }
        let (named, text) = try message(in: argument, conversation: open)
        guard !text.isEmpty, let target = try named ?? newestFromOthers(in: open) else {
            write(text.isEmpty ? "/reply [MSG] TEXT — the answer to send" : "nothing here to reply to yet")
            return
        }
        _ = try await messenger.send(text, to: .conversation(open), replyTo: target.ref)
        let status = online ? "" : " (sending…)"
        write(
            "[\(timestamps.time(Date()))] You (↪ \(Preview.line(target.quoteLine, mine: false, limit: 40))): "
                + "\(TextSanitizer.line(text))\(status)")
    }

    func react(_ argument: String, removed: Bool) async throws {
        guard let open = openOrSay() else { return }
        let (named, emoji) = try message(in: argument, conversation: open)
        guard !emoji.isEmpty, let target = try named ?? newestFromOthers(in: open) else {
            write(
                emoji.isEmpty
                    ? "/\(removed ? "unreact" : "react") [MSG] EMOJI — one emoji, such as 👍"
                    : "nothing here to react to yet")
            return
        }
        let done = try await messenger.react(emoji, to: target.ref, in: open, removed: removed)
        let whose = target.isMine ? "your message" : "\(TextSanitizer.line(target.authorName))'s message"
        write(
            "You \(removed ? "took back \(done.emoji) from" : "reacted \(done.emoji) to") \(whose): "
                + Preview.line(TextSanitizer.line(target.text ?? ""), mine: false, limit: 40))
    }

    private func openOrSay() -> ConversationID? {
        if open == nil { write("no conversation is open — /open NAME first") }
        return open
    }

    /// The message the first word names, if it names one, and the rest of the line.
    private func message(in argument: String, conversation: ConversationID) throws -> (ChatMessage?, String) {
        let parts = argument.split(separator: " ", maxSplits: 1).map(String.init)
        guard let first = parts.first else { return (nil, "") }
        let rest = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        if first.hasPrefix("^"), let back = Int(first.dropFirst()), back >= 1 {
            let recent = try local.store.history(conversation, limit: back)
            guard recent.count == back, let message = recent.first else {
                throw StoreError.invalidInput("there are not \(back) messages here (^1 is the newest)")
            }
            return (message, rest)
        }
        if first.contains("/"), first.split(separator: "/").last.flatMap({ UInt64($0) }) != nil {
            let ref = try Resolver(store: local.store).message(first, in: conversation)
            return (try local.store.message(conversation, author: ref.author, seq: ref.seq), rest)
        }
        return (nil, argument)
    }

    private func newestFromOthers(in conversation: ConversationID) throws -> ChatMessage? {
        try local.store.history(conversation, limit: 50).last { !$0.isMine && !$0.isDeleted }
    }
}
