import ConfabClient
import ConfabModel
import Foundation

/// What the node tells, as lines: messages from others, their edits and reactions, the
/// status of mine in the open conversation, peers coming and going, files arriving.
extension PlainChat {
    func show(_ event: NodeEvent) async {
        switch event {
        case .message(let message) where !message.isMine:
            if message.conversationID == open {
                write(line(for: message))
                _ = try? await messenger.markRead(message.conversationID)
            } else {
                let summary = try? await messenger.conversation(message.conversationID)
                let place = summary.map { " in \(TextSanitizer.line($0.displayName))" } ?? ""
                write(
                    "[\(timestamps.time(message.sentAt))] \(TextSanitizer.line(message.authorName))\(place)\(quote(of: message)): \(text(of: message))"
                )
                // A mention of me comes through a mute.
                if summary?.isMuted != true || message.mentionsMe { notifier.announce(message, in: summary) }
            }
        case .message:
            break
        case .edited(let message) where !message.isMine, .deleted(let message) where !message.isMine:
            let what = message.isDeleted ? "deleted a message" : "edited: \(text(of: message))"
            write(
                "[\(timestamps.time(Date()))] \(TextSanitizer.line(message.authorName))\(await place(of: message)) \(what)"
            )
        case .edited, .deleted:
            break
        case .reaction(let message, let change) where change.reactor != local.me:
            let emoji = TextSanitizer.line(change.emoji)
            let what = change.removed ? "took back \(emoji) from" : "reacted \(emoji) to"
            let whose = message.isMine ? "your message" : "\(TextSanitizer.line(message.authorName))'s message"
            write(
                "[\(timestamps.time(Date()))] \(TextSanitizer.line(change.reactorName))\(await place(of: message)) \(what) \(whose): "
                    + Preview.line(text(of: message), mine: false, limit: 40))
        case .reaction:
            break
        case .status(let conversation, let seq, let status) where conversation == open:
            let text = (try? await messenger.message(MessageRef(author: local.me, seq: seq), in: conversation))??.text
            write(
                "  \(StatusMark.short(status)) \(status.rawValue): \(TextSanitizer.line(text.map { Preview.line($0, mine: false) } ?? "message \(seq)"))"
            )
        case .status:
            break
        case .peerOnline(let peer):
            if announcedOnline.insert(peer.id).inserted { write("* \(TextSanitizer.line(peer.name)) is online") }
            // Known once its Hello came, which announces it again (Protocol.md §12.1).
            if let notice = peer.protocolNotice, announcedNotices.insert(notice).inserted {
                write("⚠ " + TextSanitizer.line(notice))
            }
        case .peerOffline(let peer):
            announcedOnline.remove(peer.id)
            write("* \(TextSanitizer.line(peer.name)) went offline")
        case .file(let file) where file.conversationID == open && file.author != local.me:
            // Arrival is the message line; what follows is its end, not each step.
            if file.state == .complete {
                write("  📎 \(TextSanitizer.line(file.name ?? "file")) received — /save \(file.shortID)")
            } else if file.state == .failed {
                write("  📎 \(TextSanitizer.line(file.name ?? "file")) \(file.stateText)")
            }
        case .filePeer(let conversation, let seq, let peer, _, true) where conversation == open:
            let name = (try? await messenger.knownPeers())?.first { $0.id == peer }?.name ?? peer.shortHex
            let file =
                (try? await messenger.message(MessageRef(author: local.me, seq: seq), in: conversation))??.text
                ?? "your file"
            write("  📎 \(TextSanitizer.line(name)) has \(TextSanitizer.line(file))")
        case .changed, .file, .filePeer, .link:
            break
        case .typing:
            // Plain lines are read by screen readers and kept in logs: "is typing…" every
            // few seconds would be noise there, so it is never printed (nor sent: lines
            // arrive whole, with no keys to tell).
            break
        case .members(let line):
            write("[\(timestamps.time(line.sentAt))] * \(TextSanitizer.line(text(of: line)))\(await place(of: line))")
        }
    }

    /// " in NAME" for an event of a conversation that is not the open one.
    private func place(of message: ChatMessage) async -> String {
        guard message.conversationID != open else { return "" }
        return (try? await messenger.conversation(message.conversationID)).map {
            " in \(TextSanitizer.line($0.displayName))"
        } ?? ""
    }
}
