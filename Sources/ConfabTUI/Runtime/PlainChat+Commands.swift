import ConfabClient
import ConfabModel
import ConfabStore
import Foundation

/// A line of the plain chat, parsed: words to print at once, or the effects it stands for
/// with what their lines need besides the answers.
enum PlainRequest: Equatable {
    case say(String)
    case quit
    case perform([ChatEffect], PlainEcho = PlainEcho())
}

/// What the lines printed for a request need that its answers do not carry: the message it
/// acts on as it read before (the text a deletion took away, the original a reply quotes),
/// and names as they were typed.
struct PlainEcho: Equatable {
    var subject: ChatMessage?
    var names: [String] = []
}

/// Lines into effects: what a command names is resolved here — numbers in what was last
/// printed, messages through the messenger's reads, names where they were typed
/// (`Resolver`), as every front end resolves them; a line that is no command is a message
/// to the open conversation.
extension PlainChat {
    static let noneOpen = "no conversation is open — /open NAME first"

    func request(for line: String) async throws -> PlainRequest {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("/") else {
            guard !trimmed.isEmpty else { return .perform([]) }
            guard let open else { return .say(Self.noneOpen + " (or /list)") }
            return .perform([.send(open, text: line)])
        }
        let parts = trimmed.dropFirst().split(separator: " ", maxSplits: 1).map(String.init)
        let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        switch parts.first?.lowercased() ?? "" {
        case "help", "?": return .say(Self.help)
        case "list": return .perform([.loadConversations(includeArchived: argument == "all")])
        case "open": return try await openRequest(argument)
        case "history":
            guard let open else { return .say(Self.noneOpen) }
            return .perform([.loadHistory(open, limit: max(1, min(Int(argument) ?? 20, 500)))])
        case "search": return .perform([.search(argument)])
        case "edit", "unsend": return try await changeLast(edit: parts[0].lowercased() == "edit", argument)
        case "reply": return try await reply(argument)
        case "react": return try await react(argument, removed: false)
        case "unreact": return try await react(argument, removed: true)
        case "file":
            guard let open else { return .say(Self.noneOpen) }
            guard !argument.isEmpty else { return .say("/file PATH — a file, or a folder sent as a tree") }
            return .perform([.sendFile(open, path: argument)])
        case "files":
            guard let open else { return .say(Self.noneOpen) }
            return .perform([.listFiles(open)])
        case "save": return try await save(argument)
        case "new":
            let names = argument.split(separator: " ").map(String.init)
            guard !names.isEmpty else { return .say("/new NAME [NAME…] — peer names as in /peers") }
            let resolver = Resolver(store: local.store)
            let ids = try names.map { try resolver.peer($0) }
            return .perform([.createConversation(participants: ids, title: nil)], PlainEcho(names: names))
        case "members":
            guard let open else { return .say(Self.noneOpen) }
            return .perform([.members(open, .list)])
        case "add", "remove": return changeMembers(argument, adding: parts[0].lowercased() == "add")
        case "leave":
            guard let open else { return .say(Self.noneOpen) }
            return .perform([.members(open, .leave)])
        case "rooms", "join":
            switch RoomCommand(line: trimmed)?.effect {
            case .success(let effect)?: return .perform([effect])
            case .failure(let error)?: return .say(error.message)
            case nil: return .say("/rooms, or /join NAME — \(RoomName.rule)")
            }
        case "devices": return devicesRequest(trimmed)
        case "peers": return .perform([.loadPeers])
        case "resync": return .perform([.resync])
        case "quit", "exit", "q": return .quit
        default: return .say("unknown command \"\(trimmed)\" — type /help for the list")
        }
    }

    /// `/open NAME|N`: N counts in the last list or search printed.
    private func openRequest(_ text: String) async throws -> PlainRequest {
        guard !text.isEmpty else { return .say("/open NAME or /open N (a number from /list)") }
        let id: ConversationID
        if let number = Int(text), listed.indices.contains(number - 1) {
            id = listed[number - 1]
        } else {
            id = try Resolver(store: local.store).conversation(text)
        }
        return .perform([.openConversation(id, around: nil), .markRead(id)])
    }

    /// `/edit TEXT` and `/unsend`: my latest message in the open conversation still there.
    private func changeLast(edit: Bool, _ text: String) async throws -> PlainRequest {
        if edit, text.isEmpty { return .say("/edit TEXT — the new text of your last message here") }
        guard let open else { return .say(Self.noneOpen) }
        guard let message = try await messenger.lastOwnMessage(in: open) else {
            return .say("you have no message here to change")
        }
        if edit { return .perform([.edit(open, seq: message.seq, text: text)]) }
        return .perform([.unsend(open, seq: message.seq)], PlainEcho(subject: message))
    }

    /// `/save ID [FOLDER]`: ID any unique start of a file id of 4 or more hex characters.
    private func save(_ argument: String) async throws -> PlainRequest {
        let parts = argument.split(separator: " ", maxSplits: 1).map(String.init)
        guard let prefix = parts.first, prefix.count >= 4, prefix.allSatisfy(\.isHexDigit) else {
            return .say("/save ID [FOLDER] — the id /files shows")
        }
        let matches = try await messenger.files(matching: prefix)
        guard Set(matches.map(\.fileID)).count == 1,
            let file = matches.first(where: { $0.name != nil }) ?? matches.first
        else {
            return .say(
                matches.isEmpty
                    ? "no file \(prefix) here — /files lists them" : "\(prefix) names several files: give more of it")
        }
        return .perform([.saveFile(file, folder: parts.count > 1 ? FileActions.expand(parts[1]) : nil)])
    }

    /// `/devices`, `/devices remove NAME --yes`. This chat asks nothing back, so a removal,
    /// which cannot be undone, needs `--yes` on its line, as `confab devices remove` does
    /// without a terminal to ask on.
    private func devicesRequest(_ line: String) -> PlainRequest {
        switch DeviceCommand(line: line) {
        case .remove(let typed, confirmed: false)?:
            let name = TextSanitizer.line(typed)
            return .say(
                "removing \(name) cannot be undone: it will read nothing written from now on, and what it writes "
                    + "will be refused — type /devices remove \(name) --yes to remove it")
        case .invalid?, nil: return .say("/devices lists your machines; /devices remove NAME --yes removes one")
        case let command?: return .perform([.devices(command)])
        }
    }

    /// `/add NAME… [--history]` and `/remove NAME…` in the open conversation.
    private func changeMembers(_ argument: String, adding: Bool) -> PlainRequest {
        var words = argument.split(separator: " ").map(String.init)
        let history = words.contains("--history")
        words.removeAll { $0 == "--history" }
        guard !words.isEmpty else {
            return .say(adding ? "/add NAME [NAME…] [--history] — peer names as in /peers" : "/remove NAME [NAME…]")
        }
        guard let open else { return .say(Self.noneOpen) }
        return .perform([.members(open, adding ? .add(words, history: history) : .remove(words))])
    }
}

/// `/reply` and `/react`: which message they are for is the first word when it names one
/// (`^N`, the Nth newest message of the open conversation, or an id as `history --json`
/// prints it), else the newest message from someone else.
extension PlainChat {
    private func reply(_ argument: String) async throws -> PlainRequest {
        guard let open else { return .say(Self.noneOpen) }
        let (named, text) = try await message(in: argument, conversation: open)
        guard !text.isEmpty, let target = try await messageOrNewest(named, in: open) else {
            return .say(text.isEmpty ? "/reply [MSG] TEXT — the answer to send" : "nothing here to reply to yet")
        }
        return .perform([.send(open, text: text, replyTo: target.ref)], PlainEcho(subject: target))
    }

    private func react(_ argument: String, removed: Bool) async throws -> PlainRequest {
        guard let open else { return .say(Self.noneOpen) }
        let (named, emoji) = try await message(in: argument, conversation: open)
        guard !emoji.isEmpty, let target = try await messageOrNewest(named, in: open) else {
            return .say(
                emoji.isEmpty
                    ? "/\(removed ? "unreact" : "react") [MSG] EMOJI — one emoji, such as 👍"
                    : "nothing here to react to yet")
        }
        // In the form it is stored in, so the line says what the others see; what is no
        // emoji goes as typed, for the refusal to name it.
        let effect = ChatEffect.react(
            open, target: target.ref, emoji: ReactionEmoji.normalized(emoji) ?? emoji, removed: removed)
        return .perform([effect], PlainEcho(subject: target))
    }

    /// The message the first word names, if it names one, and the rest of the line.
    private func message(in argument: String, conversation: ConversationID) async throws -> (ChatMessage?, String) {
        let parts = argument.split(separator: " ", maxSplits: 1).map(String.init)
        guard let first = parts.first else { return (nil, "") }
        let rest = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        if first.hasPrefix("^"), let back = Int(first.dropFirst()), back >= 1 {
            guard back <= Operations.History.maxLimit else {
                throw StoreError.invalidInput("^N reaches back \(Operations.History.maxLimit) messages at most")
            }
            let recent = try await messenger.history(conversation, limit: back).messages
            guard recent.count == back, let message = recent.first else {
                throw StoreError.invalidInput("there are not \(back) messages here (^1 is the newest)")
            }
            return (message, rest)
        }
        if first.contains("/"), first.split(separator: "/").last.flatMap({ UInt64($0) }) != nil {
            let ref = try Resolver(store: local.store).message(first, in: conversation)
            return (try await messenger.message(ref, in: conversation), rest)
        }
        return (nil, argument)
    }

    /// The message named, else the newest from someone else.
    private func messageOrNewest(_ message: ChatMessage?, in conversation: ConversationID) async throws -> ChatMessage?
    {
        if let message { return message }
        return try await messenger.history(conversation, limit: 50).messages.last { !$0.isMine && !$0.isDeleted }
    }
}
