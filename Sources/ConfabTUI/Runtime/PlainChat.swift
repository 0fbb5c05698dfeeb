import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

/// `confab chat --plain`: the chat as lines, with no cursor addressing, for screen
/// readers, dumb terminals and logs. Plain lines are sent to the open conversation;
/// commands start with "/". Each line becomes the same `ChatEffect`s the full-screen chat
/// emits, performed by the same `ChatEffectPerformer`, and what they answer is printed
/// as lines; incoming messages and status changes are printed as they happen.
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
    /// Set by what the effects answer (a history opened, a conversation created), as the
    /// full-screen chat's state is.
    var open: ConversationID?
    /// What `/open N` counts in: the last list or search printed.
    var listed: [ConversationID] = []
    /// Every write goes through it; until the node is reached (or started here) it is this
    /// process's own, and writes wait in the outbox.
    var messenger: any Messenger
    var online = false
    var done = false
    /// Peers said to be online, so that one already online when the chat attached is not
    /// announced twice when its event comes in just after.
    var announcedOnline: Set<NodeID> = []
    /// Protocol notices already printed (Protocol.md §12.1): each once per chat.
    var announcedNotices: Set<String> = []

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
        if let removal = try? local.store.myDeviceRemoval() { write("⚠ " + TextSanitizer.line(removal.message)) }
        do {
            try await perform(.perform([.loadConversations(includeArchived: false)]))
        } catch {
            write(String(describing: error))
        }
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
                for peer in reachable {
                    if let notice = peer.protocolNotice, announcedNotices.insert(notice).inserted {
                        write("⚠ " + TextSanitizer.line(notice))
                    }
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
          /rooms             rooms joined, and those peers are in
          /join NAME         join a room (#general): anyone on your network can read it
          /devices           your machines: name, fingerprint, online or last seen
          /devices remove NAME --yes  remove one (name or key prefix): it reads nothing written from now on
          /peers             who is online
          /resync            re-announce to every peer now
          /quit              leave (Ctrl+D too)
        Any other line is sent to the open conversation.
        """

    /// Performs this chat's effects on whichever messenger is current: the full-screen
    /// chat's performer too.
    var performer: ChatEffectPerformer {
        ChatEffectPerformer(messenger: messenger, resolver: Resolver(store: local.store), me: local.me)
    }

    // MARK: Input

    func handle(_ line: String) async {
        do {
            try await perform(try await request(for: line))
        } catch {
            write(String(describing: error))
        }
    }

    /// Says what needs no effect, or performs the effects in order through the performer
    /// both chats share and prints what each answers.
    func perform(_ request: PlainRequest) async throws {
        switch request {
        case .say(let text):
            write(text)
        case .quit:
            done = true
        case .perform(let effects, let echo):
            for effect in effects {
                for update in try await performer.perform(effect) {
                    for line in await lines(for: update, answering: effect, echo: echo) { write(line) }
                }
            }
        }
    }
}
