import ConfabClient
import ConfabModel
import ConfabStore
import Foundation

/// What an effect of either chat asks of the messenger, and what the answers tell: the
/// full-screen chat applies the updates to its state, the plain chat prints them as lines.
/// One performer for both, so what the two chats read and write cannot drift apart; every
/// read and write is an operation, as a web front end would ask it.
///
/// Effects of the screen and the keyboard (a notification, Ctrl+Z, quitting, the pace of
/// typing signals) are the full-screen chat's own and answer nothing here.
struct ChatEffectPerformer: Sendable {
    let messenger: any Messenger
    /// Names typed in a membership command are resolved where they were typed, as every
    /// front end resolves them.
    let resolver: Resolver
    let me: NodeID

    /// Messages a chat loads at a time.
    static let pageSize = Operations.History.defaultLimit

    func perform(_ effect: ChatEffect) async throws -> [ChatUpdate] {
        switch effect {
        case .loadConversations(let includeArchived):
            return [.conversations(try await messenger.conversations(includeArchived ? .all : .inbox))]
        case .openConversation(let id, let around):
            if let around, let ref = Self.ref(around), try await messenger.message(ref, in: id) != nil {
                let page = try await messenger.history(id, .around(ref))
                return [.history(id, page.messages, hasOlder: page.hasOlder, focus: around)]
            }
            let page = try await messenger.history(id, limit: Self.pageSize)
            return [.history(id, page.messages, hasOlder: page.hasOlder, focus: nil)]
        case .loadHistory(let id, let limit):
            let page = try await messenger.history(id, limit: limit)
            return [.history(id, page.messages, hasOlder: page.hasOlder, focus: nil)]
        case .loadOlder(let id, let before):
            do {
                let page = try await messenger.history(id, .before(before), limit: Self.pageSize)
                return [.olderHistory(id, page.messages, hasOlder: page.hasOlder)]
            } catch {
                // Answered either way, or the chat would wait for the page forever.
                return [
                    .olderHistory(id, [], hasOlder: false),
                    .notice("Could not load older messages: \(String(describing: error))"),
                ]
            }
        case .send(let id, let text, let replyTo):
            let sent = try await messenger.send(text, to: .conversation(id), replyTo: replyTo)
            return try await mine(sent.seq, in: id).map { [.message($0)] } ?? []
        case .edit(let id, let seq, let text):
            _ = try await messenger.edit(seq, in: id, text: text)
            return try await mine(seq, in: id).map { [.messageChanged($0)] } ?? []
        case .sendFile(let id, let path):
            let sent = try await FileActions.send(path, to: id, messenger: messenger)
            var updates: [ChatUpdate] = []
            for file in sent {
                if let message = try await mine(file.seq, in: id) { updates.append(.message(message)) }
            }
            let what = sent.count == 1 ? sent[0].name : "\(sent.count) files"
            return updates + [.notice("Sent \(TextSanitizer.line(what)); recipients fetch it from here")]
        case .saveFile(let file, let folder):
            let into = folder.map { URL(fileURLWithPath: $0) } ?? FileActions.downloads
            switch try await FileActions.save(file, into: into, messenger: messenger) {
            case .saved(let url): return [.fileSave(file, savedTo: url.path)]
            case .fetching: return [.fileSave(file, savedTo: nil)]
            }
        case .listFiles(let id):
            return [.files(id, try await messenger.files(in: id))]
        case .completePath(let input):
            return [.completion(FileActions.complete(input))]
        case .unsend(let id, let seq):
            _ = try await messenger.unsend(seq, in: id)
            guard let message = try await mine(seq, in: id) else { return [] }
            return [.messageChanged(message), .notice("Deleted for everyone")]
        case .react(let id, let target, let emoji, let removed):
            let done = try await messenger.react(emoji, to: target, in: id, removed: removed)
            guard let message = try await messenger.message(target, in: id) else { return [] }
            return [.messageChanged(message), .notice(removed ? "Took back \(done.emoji)" : "Reacted \(done.emoji)")]
        // The state has already changed its rows and asks for a reload where one is needed.
        case .markRead(let id):
            // Also clears a "marked unread" flag.
            try await messenger.markRead(id)
            return []
        case .setArchived(let id, let value):
            try await messenger.setFlag(.archived, value, on: id)
            return []
        case .setPinned(let id, let value):
            try await messenger.setFlag(.pinned, value, on: id)
            return []
        case .setMarkedUnread(let id, let value):
            try await messenger.setFlag(.markedUnread, value, on: id)
            return []
        case .delete(let id):
            try await messenger.delete(id)
            return [.notice("Deleted the conversation from this machine")]
        case .search(let query):
            return [.searchResults(query: query, try await messenger.search(query))]
        case .createConversation(let participants, let title):
            let created = try await messenger.create(with: participants, title: title, firstMessage: nil)
            return [.created(created.conversation)]
        case .setTypingIndicators(let on):
            try await messenger.setTypingIndicators(on)
            return []
        case .members(let id, let command):
            return try await members(command, in: id)
        case .joinRoom(let name):
            let joined = try await messenger.perform(Operations.Join(name))
            return [.created(joined.conversation), .notice("Joined \(name): anyone on your network can read it")]
        case .loadRooms:
            return [.rooms(try await messenger.perform(Operations.Rooms()))]
        case .devices(let command):
            return try await devices(command)
        case .resync:
            guard messenger.reachesNode else { return [.notice("Offline: no node is running yet")] }
            try await messenger.resync()
            return [.resynced]
        case .loadPeers:
            let peers = try await messenger.peers()
            let verified = try await messenger.knownPeers().filter { $0.trust == .verified }.map(\.id)
            return [.peers(peers, verified: Set(verified))]
        case .typing, .notify, .quit, .suspend:
            return []
        }
    }

    /// `/members`, `/add`, `/remove`, `/leave` in a conversation: a change is written, then
    /// the chat and the list are read again (its system line, and who is in).
    private func members(_ command: MembersCommand, in id: ConversationID) async throws -> [ChatUpdate] {
        let notice: String
        switch command {
        case .list:
            return [.memberList(try await messenger.members(of: id))]
        case .add(let names, let history):
            let keys = try names.map(resolver.peer)
            _ = try await messenger.changeMembers(of: id, add: keys, remove: [], shareHistory: history)
            notice = "Added \(names.map(TextSanitizer.line).joined(separator: ", "))"
        case .remove(let names):
            let keys = try names.map(resolver.peer)
            _ = try await messenger.changeMembers(of: id, add: [], remove: keys, shareHistory: false)
            notice = "Removed \(names.map(TextSanitizer.line).joined(separator: ", "))"
        case .leave:
            _ = try await messenger.leave(id)
            notice = "You left this conversation"
        }
        return try await [.notice(notice)] + perform(.openConversation(id, around: nil))
            + perform(.loadConversations(includeArchived: false))
    }

    /// `/devices` and `/devices remove NAME`. The name is chosen as `confab devices remove`
    /// chooses it, from the device list held here; a linked machine is refused before any
    /// question, with the words the operation itself would refuse with.
    private func devices(_ command: DeviceCommand) async throws -> [ChatUpdate] {
        switch command {
        case .list:
            let listing = try await messenger.perform(Operations.Devices())
            // Only a running node knows who is online now.
            let online = messenger.reachesNode ? try await messenger.peers().filter(\.online).map(\.id) : []
            return [.devices(.listing(listing, online: Set(online)))]
        case .remove(let query, let confirmed):
            let listing = try await messenger.perform(Operations.Devices())
            let personName = listing.devices.first(where: \.personKey)?.name ?? listing.person.shortHex
            guard listing.canRemove else {
                throw Operations.RemoveDevice.refusal(person: listing.person, personName: personName, removing: query)
            }
            let list = try resolver.store.deviceList(of: listing.person)
            let chosen = try DeviceChooser.choose(query, in: list, personName: personName, includingPersonKey: false)
            guard let device = listing.devices.first(where: { $0.id == chosen.key }) else {
                throw StoreError.invalidInput("no device \(query) is in your devices (see /devices)")
            }
            guard confirmed else { return [.devices(.toRemove(device))] }
            return [.devices(.removed(try await messenger.perform(Operations.RemoveDevice(device.id))))]
        case .invalid(let why):
            return [.notice(why)]
        }
    }

    /// My message `seq` as it reads now, just after writing it.
    private func mine(_ seq: UInt64, in conversation: ConversationID) async throws -> ChatMessage? {
        try await messenger.message(MessageRef(author: me, seq: seq), in: conversation)
    }

    /// A message id as `history --json` prints it, `<conversation>/<author>/<seq>`.
    static func ref(_ id: String) -> MessageRef? {
        let parts = id.split(separator: "/")
        guard parts.count == 3, ConversationID(hex: String(parts[0])) != nil,
            let author = NodeID(hex: String(parts[1])), let seq = UInt64(parts[2])
        else { return nil }
        return MessageRef(author: author, seq: seq)
    }
}
