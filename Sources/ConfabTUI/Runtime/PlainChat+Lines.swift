import ConfabClient
import ConfabModel
import ConfabStore
import Foundation

/// What the plain chat prints for each update an effect answers — worded for the effect
/// that asked, as the full-screen chat's state takes each update in. Notices meant for the
/// full-screen chat's status bar are not printed: the lines here say it their own way.
extension PlainChat {
    func lines(for update: ChatUpdate, answering effect: ChatEffect, echo: PlainEcho) async -> [String] {
        switch (effect, update) {
        case (.loadConversations, .conversations(let list)):
            listed = list.map(\.id)
            return list.isEmpty ? ["No conversations yet — /new NAME starts one (see /peers)"] : listLines(list)
        case (.openConversation, .history(let id, let messages, _, _)):
            open = id
            let summary = try? await messenger.conversation(id)
            let people = Set(summary?.participants.map(\.id) ?? [])
            let notices = ((try? await messenger.peers()) ?? []).filter { people.contains($0.id) }
                .compactMap(\.protocolNotice)
            return ["— \(TextSanitizer.line(summary?.displayName ?? id.shortHex)) —"]
                + ((summary?.warnings ?? []) + notices).map { "⚠ " + TextSanitizer.line($0) }
                + historyLines(Self.newest(20, of: messages))
        case (.loadHistory, .history(_, let messages, _, _)):
            return historyLines(messages)
        case (.search(let query), .searchResults(_, let hits)):
            guard !hits.isEmpty else { return ["nothing matches \"\(query)\""] }
            listed = hits.map(\.conversation.id)
            return hits.enumerated().map { index, hit in
                let snippet = hit.snippet.map { " — " + TextSanitizer.line($0) } ?? ""
                return "\(index + 1). \(TextSanitizer.line(hit.conversation.displayName))\(snippet)"
            } + ["/open N opens one of these"]
        case (.send(_, let text, _), .message):
            let quote = echo.subject.map { " (↪ \(Preview.line($0.quoteLine, mine: false, limit: 40)))" } ?? ""
            return [
                "[\(timestamps.time(Date()))] You\(quote): \(TextSanitizer.line(text))\(online ? "" : " (sending…)")"
            ]
        case (.edit(_, _, let text), .messageChanged):
            return ["[\(timestamps.time(Date()))] You (edited): \(TextSanitizer.line(text))"]
        case (.unsend, .messageChanged):
            return ["Deleted for everyone: \(echo.subject.map(text(of:)) ?? ChatMessage.deletedText)"]
        case (.react(_, _, let emoji, let removed), .messageChanged(let message)):
            let whose = message.isMine ? "your message" : "\(TextSanitizer.line(message.authorName))'s message"
            return [
                "You \(removed ? "took back \(emoji) from" : "reacted \(emoji) to") \(whose): "
                    + Preview.line(TextSanitizer.line(echo.subject?.text ?? ""), mine: false, limit: 40)
            ]
        case (.sendFile, .message(let message)):
            guard let file = message.file else { return [] }
            return [
                "[\(timestamps.time(Date()))] You: 📎 \(TextSanitizer.line(file.name ?? message.text ?? "file")) · \(ByteSize.format(Int(clamping: file.size))) (file \(file.shortID))"
            ]
        case (.listFiles, .files(_, let files)):
            guard !files.isEmpty else { return ["No files here yet — /file PATH sends one"] }
            return files.map { file in
                let state = file.author == local.me ? "sent" : file.stateText(save: "/save \(file.shortID)")
                return "\(file.shortID)  \(file.summary) — \(state)"
            }
        case (.saveFile, .fileSave(let file, let path)):
            return [
                path.map { "saved to \($0)" }
                    ?? "fetching \(file.shortID) — /save \(file.shortID) again once it is received"
            ]
        case (.createConversation, .created(let id)):
            open = id
            return ["— new conversation with \(echo.names.joined(separator: ", ")) — type to send"]
        case (.members, .memberList(let list)):
            return memberLines(list)
        case (.loadRooms, .rooms(let rooms)):
            guard !rooms.isEmpty else { return ["no rooms yet — /join general"] }
            return rooms.map { room in
                "\(room.room)  " + (room.joined ? "joined" : "not joined") + ", \(room.peers) in session in it"
            }
        case (.joinRoom(let name), .created(let id)):
            open = id
            return ["— joined \(name) (anyone on your network can read it) — type to send"]
        case (.joinRoom, .notice):
            return []
        case (.members(_, let command), .notice):
            switch command {
            case .add(let names, _): return ["* You added \(names.map(TextSanitizer.line).joined(separator: ", "))"]
            case .remove(let names): return ["* You removed \(names.map(TextSanitizer.line).joined(separator: ", "))"]
            case .leave: return ["* You left"]
            case .list: return []
            }
        case (.devices, .devices(.listing(let listing, let online))):
            // A removed machine is told first: nothing it writes is taken any more.
            let removal = listing.removed.map { ["⚠ " + TextSanitizer.line($0.message)] } ?? []
            let lines = listing.devices.map { device in
                "\(DeviceText.name(device))  \(DeviceText.shortFingerprint(device.id))  "
                    + DeviceText.state(device, online: online, timestamps: timestamps)
            }
            let hint = listing.canRemove && listing.devices.count > 1 ? ["/devices remove NAME --yes removes one"] : []
            return removal + lines + hint
        case (.devices, .devices(.removed(let outcome))):
            return [DeviceText.removed(outcome) + "; your peers learn of it when this machine next meets them"]
        case (.loadPeers, .peers(let peers, _)):
            return peerLines(peers)
        case (.resync, .resynced):
            return ["Resyncing with every peer"]
        case (.resync, .notice(let text)):
            return [text]
        default:
            return []
        }
    }

    private func listLines(_ list: [ConversationSummary]) -> [String] {
        list.enumerated().map { index, summary in
            var line = "\(index + 1). \(TextSanitizer.line(summary.displayName))"
            if let preview = summary.preview { line += " — \(TextSanitizer.line(preview))" }
            line += " · \(timestamps.short(summary.lastActivityAt))"
            if summary.badgeCount > 0 { line += " · \(summary.badgeCount) unread" }
            if summary.isPinned { line += " · pinned" }
            if summary.isArchived { line += " · archived" }
            return line
        }
    }

    private func historyLines(_ messages: [ChatMessage]) -> [String] {
        messages.isEmpty ? ["No messages yet — say hi"] : messages.map(line(for:))
    }

    /// The newest `count` messages of a page, with the system lines among them: a page of
    /// exactly that many, as a shorter history read would give.
    static func newest(_ count: Int, of messages: [ChatMessage]) -> [ChatMessage] {
        var seen = 0
        for index in messages.indices.reversed() where !messages[index].isSystemLine {
            seen += 1
            if seen == count { return Array(messages[index...]) }
        }
        return messages
    }

    private func memberLines(_ list: MemberList) -> [String] {
        list.members.map { member in
            let name = member.id == local.me ? "You" : TextSanitizer.line(member.name)
            return "\(name)\(member.id == list.admin ? " (admin)" : "")"
        } + list.former.filter { $0.id != local.me }.map { "\(TextSanitizer.line($0.name)) (no longer a member)" }
            + (list.includesMe ? [] : ["You are no longer a member of this conversation"])
    }

    /// Online, who is and who is not; offline, the peers known here.
    private func peerLines(_ peers: [PeerPresence]) -> [String] {
        guard online, !peers.isEmpty else {
            let known = peers.map { TextSanitizer.line($0.name) }
            return [known.isEmpty ? "No known peers yet" : "Known peers (offline): \(known.joined(separator: ", "))"]
        }
        return peers.flatMap { peer in
            [
                "\(peer.online ? "online " : "offline") \(TextSanitizer.line(peer.name))\(peer.role == .relay ? " (relay)" : "")"
            ] + (peer.protocolNotice.map { ["   ⚠ " + TextSanitizer.line($0)] } ?? [])
        }
    }

    func line(for message: ChatMessage) -> String {
        if message.isSystemLine { return "[\(timestamps.time(message.sentAt))] * \(text(of: message))" }
        let status = message.status.map { " (\($0 == .sending ? "sending…" : $0.rawValue))" } ?? ""
        let edited = message.editedAt != nil && !message.isDeleted ? " (edited)" : ""
        let reactions =
            message.isDeleted || message.reactions.isEmpty
            ? "" : " [" + message.reactions.map { $0.summary() }.joined(separator: " · ") + "]"
        return
            "[\(timestamps.time(message.sentAt))] \(TextSanitizer.line(message.authorName))\(quote(of: message)): \(text(of: message))\(edited)\(reactions)\(status)"
    }

    /// " (↪ Alice: the original…)" for a reply.
    func quote(of message: ChatMessage) -> String {
        message.replyTo.map { " (↪ \($0.line(limit: 40)))" } ?? ""
    }

    func text(of message: ChatMessage) -> String {
        if let system = message.systemLine { return TextSanitizer.line(system) }
        if message.isDeleted { return ChatMessage.deletedText }
        if let file = message.file {
            return file.summary + (message.isMine ? "" : " — " + file.stateText(save: "/save \(file.shortID)"))
        }
        return message.text.map(TextSanitizer.line) ?? "(could not be decrypted)"
    }
}
