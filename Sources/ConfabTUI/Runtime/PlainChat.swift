import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

/// `confab chat --plain`: the chat as lines, with no cursor addressing, for screen
/// readers, dumb terminals and logs. Plain lines are sent to the open conversation;
/// commands start with "/". Incoming messages and status changes are printed as they
/// happen.
public final class PlainChat {
    enum Event: Sendable {
        case line(String)
        case endOfInput
        case node(NodeEvent)
        case connected(any Messenger)
        case connectFailed(String)
        /// The node this chat attached to stopped: its event stream ended.
        case nodeGone
    }

    let local: Profile
    let options: NodeOptions
    let write: @Sendable (String) -> Void
    let notifier: Notifier
    let timestamps = SmartTimestamp()
    var open: ConversationID?
    var listed: [ConversationID] = []
    /// Every write goes through it; until the node is reached (or started here) it is this
    /// process's own, and writes wait in the outbox.
    var messenger: any Messenger
    var online = false
    var done = false
    /// Peers said to be online, so that one already online when the chat attached is not
    /// announced twice when its event comes in just after.
    var announcedOnline: Set<NodeID> = []

    public init(
        local: Profile, options: NodeOptions, write: @escaping @Sendable (String) -> Void,
        notifier: Notifier = Notifier(style: .off, ring: {})
    ) {
        self.local = local
        self.options = options
        self.write = write
        self.notifier = notifier
        messenger = LocalMessenger(local: local)
    }

    /// Runs until /quit or the end of `lines`.
    public func run(lines: AsyncStream<String>) async {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        write("Confab (plain) — \(((try? local.displayName()) ?? "me")). Type /help for commands.")
        list(all: false)
        let local = self.local
        let options = self.options
        let connect = Task {
            do {
                continuation.yield(.connected(try await local.messenger(startingNodeWith: options)))
            } catch {
                continuation.yield(.connectFailed("\(error)"))
            }
        }
        let reader = Task {
            for await line in lines { continuation.yield(.line(line)) }
            continuation.yield(.endOfInput)
        }
        var watcher: Task<Void, Never>?
        for await event in events {
            switch event {
            case .line(let line):
                await handle(line)
            case .endOfInput:
                done = true
            case .node(let event):
                await show(event)
            case .connected(let messenger):
                self.messenger = messenger
                online = true
                if let events = try? await messenger.events(for: nil) {
                    watcher = Task {
                        for await event in events { continuation.yield(.node(event)) }
                        if !Task.isCancelled { continuation.yield(.nodeGone) }
                    }
                }
                // Peers that came online before this chat listened: said now, as their
                // events would have.
                let reachable = ((try? await messenger.peers()) ?? []).filter(\.online)
                write(
                    reachable.isEmpty
                        ? Self.offline : "Online · \(reachable.count) peer\(reachable.count == 1 ? "" : "s")")
                for peer in reachable where announcedOnline.insert(peer.id).inserted {
                    write("* \(TextSanitizer.line(peer.name)) is online")
                }
            case .connectFailed(let reason):
                write("Offline: the node could not start — \(reason)")
            case .nodeGone:
                // As the full-screen chat says it: what is written from now on waits in the outbox.
                write(Self.nodeGone)
                online = false
                announcedOnline = []
                messenger = LocalMessenger(local: local)
            }
            if done { break }
        }
        connect.cancel()
        reader.cancel()
        watcher?.cancel()
        continuation.finish()
        await messenger.close()
    }

    static let offline = "Offline — messages will be sent when a peer is reachable"
    static let nodeGone = "The node (confab up) stopped; messages stay queued — restart confab to reconnect"

    static let help = """
        Commands:
          /list [all]        conversations, newest first (all: archived too)
          /open NAME|N       open a conversation by peer name, title, id prefix or list number
          /history [N]       the last N messages of the open conversation (default 20)
          /search TEXT       search messages, titles and names
          /edit TEXT         replace the text of your last message here (everyone sees it, marked edited)
          /unsend            delete your last message here for everyone
          /reply [MSG] TEXT  answer a message, quoted above yours (default: the newest from someone else)
          /react [MSG] EMOJI react to a message with an emoji (same default); /unreact takes it back
                             MSG: ^N for the Nth newest message here (^1 the newest), or an id from history --json
          /file PATH         send a file, or a folder as a tree, to the open conversation
          /files             the files of the open conversation, with their ids
          /save ID [FOLDER]  save a received file (into FOLDER, else Downloads); fetches it first if needed
          /new NAME [NAME…]  start a conversation with these peers
          /members           who is in the open conversation, and its admin
          /add NAME… [--history]  add people here (--history: they can read what came before)
          /remove NAME…      remove people here (the admin only)
          /leave             leave the open conversation
          /peers             who is online
          /resync            re-announce to every peer now
          /quit              leave (Ctrl+D too)
        Any other line is sent to the open conversation.
        """

    // MARK: Input

    func handle(_ line: String) async {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("/") else {
            await send(line)
            return
        }
        let parts = trimmed.dropFirst().split(separator: " ", maxSplits: 1).map(String.init)
        let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        do {
            switch parts.first?.lowercased() ?? "" {
            case "help", "?": write(Self.help)
            case "list": list(all: argument == "all")
            case "open": try await openConversation(argument)
            case "history": try history(Int(argument) ?? 20)
            case "search": try search(argument)
            case "edit": try await editLast(argument)
            case "unsend": try await unsendLast()
            case "reply": try await reply(argument)
            case "react": try await react(argument, removed: false)
            case "unreact": try await react(argument, removed: true)
            case "file": try await sendFile(argument)
            case "files": try listFiles()
            case "save": try await saveFile(argument)
            case "new": try await create(argument.split(separator: " ").map(String.init))
            case "members": try listMembers()
            case "add": try await changeMembers(argument, adding: true)
            case "remove": try await changeMembers(argument, adding: false)
            case "leave": try await leaveOpen()
            case "peers": await peers()
            case "resync":
                if online { try await messenger.resync() }
                write(online ? "Resyncing with every peer" : "Offline: no node is running yet")
            case "quit", "exit", "q": done = true
            default: write("unknown command \"\(trimmed)\" — type /help for the list")
            }
        } catch {
            write(String(describing: error))
        }
    }

    private func send(_ text: String) async {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        guard let open else {
            write("no conversation is open — /open NAME first (or /list)")
            return
        }
        do {
            _ = try await messenger.send(text, to: .conversation(open))
            let status = online ? "" : " (sending…)"
            write("[\(timestamps.time(Date()))] You: \(TextSanitizer.line(text))\(status)")
        } catch {
            write(String(describing: error))
        }
    }

    /// My latest message in the open conversation that is still there, or nil (said).
    private func lastOwnMessage() throws -> (ConversationID, ChatMessage)? {
        guard let open else {
            write("no conversation is open — /open NAME first")
            return nil
        }
        guard let seq = try local.store.lastOwnMessageSeq(in: open),
            let message = try local.store.message(open, author: local.me, seq: seq)
        else {
            write("you have no message here to change")
            return nil
        }
        return (open, message)
    }

    private func editLast(_ text: String) async throws {
        guard !text.isEmpty else {
            write("/edit TEXT — the new text of your last message here")
            return
        }
        guard let (open, message) = try lastOwnMessage() else { return }
        _ = try await messenger.edit(message.seq, in: open, text: text)
        write("[\(timestamps.time(Date()))] You (edited): \(TextSanitizer.line(text))")
    }

    private func unsendLast() async throws {
        guard let (open, message) = try lastOwnMessage() else { return }
        _ = try await messenger.unsend(message.seq, in: open)
        write("Deleted for everyone: \(text(of: message))")
    }

    private func sendFile(_ path: String) async throws {
        guard let open else {
            write("no conversation is open — /open NAME first")
            return
        }
        guard !path.isEmpty else {
            write("/file PATH — a file, or a folder sent as a tree")
            return
        }
        for file in try await FileActions.send(path, to: open, messenger: messenger) {
            write(
                "[\(timestamps.time(Date()))] You: 📎 \(TextSanitizer.line(file.name)) · \(ByteSize.format(Int(clamping: file.size))) (file \(String(file.file.hex.prefix(12))))"
            )
        }
    }

    private func listFiles() throws {
        guard let open else {
            write("no conversation is open — /open NAME first")
            return
        }
        let files = try local.store.files(in: open)
        guard !files.isEmpty else {
            write("No files here yet — /file PATH sends one")
            return
        }
        for file in files {
            let state = file.author == local.me ? "sent" : file.stateText(save: "/save \(file.shortID)")
            write("\(file.shortID)  \(file.summary) — \(state)")
        }
    }

    private func saveFile(_ argument: String) async throws {
        let parts = argument.split(separator: " ", maxSplits: 1).map(String.init)
        guard let prefix = parts.first, prefix.count >= 4, prefix.allSatisfy(\.isHexDigit) else {
            write("/save ID [FOLDER] — the id /files shows")
            return
        }
        let matches = try local.store.files(matching: prefix)
        guard Set(matches.map(\.fileID)).count == 1,
            let file = matches.first(where: { $0.name != nil }) ?? matches.first
        else {
            write(
                matches.isEmpty
                    ? "no file \(prefix) here — /files lists them" : "\(prefix) names several files: give more of it")
            return
        }
        let folder = parts.count > 1 ? URL(fileURLWithPath: FileActions.expand(parts[1])) : FileActions.downloads
        switch try await FileActions.save(file, into: folder, messenger: messenger) {
        case .saved(let url): write("saved to \(url.path)")
        case .fetching: write("fetching \(file.shortID) — /save \(file.shortID) again once it is received")
        }
    }

    private func list(all: Bool) {
        do {
            let conversations = try local.store.conversations(all ? .all : .inbox)
            listed = conversations.map(\.id)
            guard !conversations.isEmpty else {
                write("No conversations yet — /new NAME starts one (see /peers)")
                return
            }
            for (index, summary) in conversations.enumerated() {
                var line = "\(index + 1). \(TextSanitizer.line(summary.displayName))"
                if let preview = summary.preview { line += " — \(TextSanitizer.line(preview))" }
                line += " · \(timestamps.short(summary.lastActivityAt))"
                if summary.badgeCount > 0 { line += " · \(summary.badgeCount) unread" }
                if summary.isPinned { line += " · pinned" }
                if summary.isArchived { line += " · archived" }
                write(line)
            }
        } catch {
            write(String(describing: error))
        }
    }

    private func openConversation(_ text: String) async throws {
        guard !text.isEmpty else {
            write("/open NAME or /open N (a number from /list)")
            return
        }
        let id: ConversationID
        if let number = Int(text), listed.indices.contains(number - 1) {
            id = listed[number - 1]
        } else {
            id = try Resolver(store: local.store).conversation(text)
        }
        open = id
        let summary = try local.store.conversation(id)
        write("— \(TextSanitizer.line(summary?.displayName ?? id.shortHex)) —")
        for warning in summary?.warnings ?? [] { write("⚠ " + TextSanitizer.line(warning)) }
        try history(20)
        try await messenger.markRead(id)
    }

    private func history(_ count: Int) throws {
        guard let open else {
            write("no conversation is open — /open NAME first")
            return
        }
        let messages = try local.store.history(open, limit: max(1, min(count, 500)))
        if messages.isEmpty { write("No messages yet — say hi") }
        for message in messages { write(line(for: message)) }
    }

    private func search(_ text: String) throws {
        let hits = try local.store.search(text)
        guard !hits.isEmpty else {
            write("nothing matches \"\(text)\"")
            return
        }
        listed = hits.map(\.conversation.id)
        for (index, hit) in hits.enumerated() {
            let snippet = hit.snippet.map { " — " + TextSanitizer.line($0) } ?? ""
            write("\(index + 1). \(TextSanitizer.line(hit.conversation.displayName))\(snippet)")
        }
        write("/open N opens one of these")
    }

    private func create(_ names: [String]) async throws {
        guard !names.isEmpty else {
            write("/new NAME [NAME…] — peer names as in /peers")
            return
        }
        let resolver = Resolver(store: local.store)
        let ids = try names.map { try resolver.peer($0) }
        let id = try await messenger.create(with: ids, title: nil, firstMessage: nil).conversation
        open = id
        write("— new conversation with \(names.joined(separator: ", ")) — type to send")
    }

    private func peers() async {
        let presences = online ? ((try? await messenger.peers()) ?? []) : []
        let known = presences.isEmpty ? ((try? local.store.peers()) ?? []).map(\.name) : []
        if presences.isEmpty {
            write(known.isEmpty ? "No known peers yet" : "Known peers (offline): \(known.joined(separator: ", "))")
            return
        }
        for peer in presences {
            write(
                "\(peer.online ? "online " : "offline") \(TextSanitizer.line(peer.name))\(peer.role == .relay ? " (relay)" : "")"
            )
        }
    }

    // MARK: Events

    private func show(_ event: NodeEvent) async {
        switch event {
        case .message(let message) where !message.isMine:
            if message.conversationID == open {
                write(line(for: message))
                _ = try? await messenger.markRead(message.conversationID)
            } else {
                let summary = try? local.store.conversation(message.conversationID)
                let place = summary.map { " in \(TextSanitizer.line($0.displayName))" } ?? ""
                write(
                    "[\(timestamps.time(message.sentAt))] \(TextSanitizer.line(message.authorName))\(place)\(quote(of: message)): \(text(of: message))"
                )
                // A mention of me comes through a mute.
                if summary?.isMuted != true || message.mentionsMe { notifier.announce(message, in: summary ?? nil) }
            }
        case .message:
            break
        case .edited(let message) where !message.isMine, .deleted(let message) where !message.isMine:
            let what = message.isDeleted ? "deleted a message" : "edited: \(text(of: message))"
            write("[\(timestamps.time(Date()))] \(TextSanitizer.line(message.authorName))\(place(of: message)) \(what)")
        case .edited, .deleted:
            break
        case .reaction(let message, let change) where change.reactor != local.me:
            let emoji = TextSanitizer.line(change.emoji)
            let what = change.removed ? "took back \(emoji) from" : "reacted \(emoji) to"
            let whose = message.isMine ? "your message" : "\(TextSanitizer.line(message.authorName))'s message"
            write(
                "[\(timestamps.time(Date()))] \(TextSanitizer.line(change.reactorName))\(place(of: message)) \(what) \(whose): "
                    + Preview.line(text(of: message), mine: false, limit: 40))
        case .reaction:
            break
        case .status(let conversation, let seq, let status) where conversation == open:
            let text = (try? local.store.message(conversation, author: local.me, seq: seq)?.text) ?? nil
            write(
                "  \(StatusMark.short(status)) \(status.rawValue): \(TextSanitizer.line(text.map { Preview.line($0, mine: false) } ?? "message \(seq)"))"
            )
        case .status:
            break
        case .peerOnline(let peer):
            if announcedOnline.insert(peer.id).inserted { write("* \(TextSanitizer.line(peer.name)) is online") }
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
            let name = (try? local.store.peer(peer))??.name ?? peer.shortHex
            let file = (try? local.store.message(conversation, author: local.me, seq: seq))??.text ?? "your file"
            write("  📎 \(TextSanitizer.line(name)) has \(TextSanitizer.line(file))")
        case .changed, .file, .filePeer:
            break
        case .typing:
            // Plain lines are read by screen readers and kept in logs: "is typing…" every
            // few seconds would be noise there, so it is never printed (nor sent: lines
            // arrive whole, with no keys to tell).
            break
        case .members(let line):
            write("[\(timestamps.time(line.sentAt))] * \(TextSanitizer.line(text(of: line)))\(place(of: line))")
        }
    }

    /// " in Title" for a message outside the open conversation.
    private func place(of message: ChatMessage) -> String { place(of: message.conversationID) }

    private func line(for message: ChatMessage) -> String {
        if message.membership != nil { return "[\(timestamps.time(message.sentAt))] * \(text(of: message))" }
        let status = message.status.map { " (\($0 == .sending ? "sending…" : $0.rawValue))" } ?? ""
        let edited = message.editedAt != nil && !message.isDeleted ? " (edited)" : ""
        let reactions =
            message.isDeleted || message.reactions.isEmpty
            ? "" : " [" + message.reactions.map { $0.summary() }.joined(separator: " · ") + "]"
        return
            "[\(timestamps.time(message.sentAt))] \(TextSanitizer.line(message.authorName))\(quote(of: message)): \(text(of: message))\(edited)\(reactions)\(status)"
    }

    /// " (↪ Alice: the original…)" for a reply.
    private func quote(of message: ChatMessage) -> String {
        message.replyTo.map { " (↪ \($0.line(limit: 40)))" } ?? ""
    }

    /// " in NAME" for an event of a conversation that is not the open one.
    private func place(of conversation: ConversationID) -> String {
        guard conversation != open else { return "" }
        return (try? local.store.conversation(conversation)).flatMap { $0 }.map {
            " in \(TextSanitizer.line($0.displayName))"
        } ?? ""
    }

    private func text(of message: ChatMessage) -> String {
        if let system = message.systemLine { return TextSanitizer.line(system) }
        if message.isDeleted { return ChatMessage.deletedText }
        if let file = message.file {
            return file.summary + (message.isMine ? "" : " — " + file.stateText(save: "/save \(file.shortID)"))
        }
        return message.text.map(TextSanitizer.line) ?? "(could not be decrypted)"
    }
}
