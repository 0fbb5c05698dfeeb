import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

/// Runs one chat: keys and node events go into the state, the state's effects are
/// performed through the messenger, and frames come out. Everything happens on
/// one task, in arrival order, so the state needs no locking.
///
/// The first frame is drawn from the local store alone (this process's messenger, with no
/// node yet); the node starts (or is attached) only after it, so a slow network never
/// delays the list.
public final class ChatSession {
    /// Where frames go, how a notification is shown, and how the chat stops as a job.
    public struct Screen: Sendable {
        public var draw: @Sendable (Frame) -> Void
        public var notify: @Sendable (ChatMessage, ConversationSummary?) -> Void
        /// Ctrl+Z: returns once the chat runs again (after `fg`).
        public var suspend: @Sendable () -> Void

        public init(
            draw: @escaping @Sendable (Frame) -> Void,
            notify: @escaping @Sendable (ChatMessage, ConversationSummary?) -> Void,
            suspend: @escaping @Sendable () -> Void = {}
        ) {
            self.draw = draw
            self.notify = notify
            self.suspend = suspend
        }
    }

    enum Event: Sendable {
        case input(TerminalInput)
        case node(NodeEvent)
        case connected(any Messenger)
        case connectFailed(String)
        case nodeGone
        case tick
        /// Updates of an effect performed off the input path (a search).
        case answered([ChatUpdate])
        case render
        /// From outside the keys (SIGTERM, SIGHUP): quit as `q` does.
        case quit
    }

    public internal(set) var state: ChatState
    let local: Profile
    let options: NodeOptions
    let screen: Screen
    let colors: Bool
    var calendar = Calendar.current
    /// Every write goes through it. Until the node is reached (or started here) it is this
    /// process's own, without a node: writes wait in the outbox and leave once it runs.
    var messenger: any Messenger
    /// Whether a node carries what is written (false until connected, or once it stopped).
    var online = false
    /// Whether the messenger the connect task made was taken (else quitting closes it).
    var adopted = false
    let events: AsyncStream<Event>
    let continuation: AsyncStream<Event>.Continuation
    var tasks: [Task<Void, Never>] = []
    var searchTask: Task<Void, Never>?
    /// A draw waiting to happen (node events are drawn together, at most every 30 ms).
    var renderTask: Task<Void, Never>?
    var syncBaseline = SyncProgressTracker()
    /// Paces what the typing effects hand to the node: a call per key would wait on a
    /// node busy with a sync.
    var typingPacer = TypingPacer()

    static let lastOpenKey = "tui.lastOpen"

    /// Conversation rows that can fit on the first screen (each row takes two lines).
    let firstScreenRows: Int

    public init(local: Profile, options: NodeOptions, width: Int, height: Int, colors: Bool, screen: Screen) throws {
        firstScreenRows = height / 2 + 1
        self.local = local
        self.options = options
        self.screen = screen
        self.colors = colors
        let lastOpen = try local.store.metaValue(Self.lastOpenKey).flatMap(ConversationID.init(hex:))
        state = ChatState(
            me: local.me, myName: try local.displayName(), lastOpen: lastOpen, width: width, height: height)
        state.calendar = calendar
        messenger = LocalMessenger(local: local)
        (events, continuation) = AsyncStream.makeStream(of: Event.self)
    }

    /// Loads the list and the last open chat from the store and draws them: the first
    /// frame, from the rows that fit on the screen; then the whole list.
    public func showLocalState() async throws {
        _ = state.apply(.identity(name: try local.displayName(), id: local.me))
        state.typingIndicators = try await messenger.typingIndicators()
        let screenful = try await messenger.conversations(.inbox, limit: max(20, firstScreenRows))
        try await perform(state.apply(.conversations(screenful)))
        if let open = state.openConversation, (try? await messenger.conversation(open)) != nil {
            try await perform([.openConversation(open, around: nil)])
        }
        // Said before anything is typed: what is typed here would be refused (§20.13).
        if let removal = try local.store.myDeviceRemoval() { _ = state.apply(.notice(removal.message)) }
        draw()
        if screenful.count >= max(20, firstScreenRows) {
            try await perform(state.apply(.conversations(try await messenger.conversations(.inbox))))
            draw()
        }
    }

    /// Feeds a key or a resize from the screen side.
    public func send(_ input: TerminalInput) {
        continuation.yield(.input(input))
    }

    /// Where the terminal's keys and resizes go; usable from any thread.
    public var inputSink: @Sendable (TerminalInput) -> Void {
        { [continuation] input in continuation.yield(.input(input)) }
    }

    /// Ends the chat as `q` does (the node stops in order); usable from any thread.
    public var quitSink: @Sendable () -> Void {
        { [continuation] in continuation.yield(.quit) }
    }

    /// Shows the local state, then connects to the network and runs until the user quits.
    public func run() async throws {
        try await showLocalState()
        let local = self.local
        let options = self.options
        let connecting = Task { [continuation] () -> (any Messenger)? in
            do {
                let messenger = try await local.messenger(startingNodeWith: options)
                continuation.yield(.connected(messenger))
                return messenger
            } catch {
                continuation.yield(.connectFailed("\(error)"))
                return nil
            }
        }
        tasks.append(
            Task { [continuation] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    continuation.yield(.tick)
                }
            })
        defer { finish() }
        for await event in events {
            await handle(event)
            if state.wantsQuit { break }
        }
        // Leaving while typing: the others stop seeing it now rather than in a few seconds
        // (when the node outlives the chat).
        _ = try? await perform(state.stopTyping())
        await messenger.close()
        // Quit while the node was starting (a signal right after launch): the node it started
        // is stopped too, never left running behind a chat that has gone.
        if !adopted, let late = await connecting.value { await late.close() }
    }

    func finish() {
        for task in tasks { task.cancel() }
        searchTask?.cancel()
        renderTask?.cancel()
        continuation.finish()
    }

    // MARK: Events

    func handle(_ event: Event) async {
        do {
            switch event {
            case .input(.keys(let keys)):
                for key in keys {
                    try await perform(state.handle(key))
                    if state.wantsQuit { return }
                }
                draw()
            case .input(.resize(let width, let height)):
                try await perform(state.resize(width: width, height: height))
                draw()
            case .node(let event):
                try await apply(event)
                scheduleRender()
            case .connected(let messenger):
                self.messenger = messenger
                adopted = true
                online = true
                try await attach(messenger)
                await refreshPeers()
                scheduleRender()
            case .connectFailed(let reason):
                try await perform(state.apply(.peers([], verified: [])))
                try await perform(state.apply(.notice("Offline: the node could not start — \(reason)")))
                scheduleRender()
            case .nodeGone:
                try await perform(
                    state.apply(
                        .notice(PlainChat.nodeGone)))
                online = false
                messenger = LocalMessenger(local: local)
                try await perform(state.apply(.peers([], verified: [])))
                try await perform(state.apply(.typingCleared))
                scheduleRender()
            case .tick:
                await refreshPeers()
                draw()
            case .answered(let updates):
                try await perform(apply(updates))
                draw()
            case .render:
                renderTask = nil
                draw()
            case .quit:
                state.wantsQuit = true
            }
        } catch {
            _ = state.apply(.notice(String(describing: error)))
            draw()
        }
    }

    /// Node events until the node stops; a node that stops under the chat (an attached
    /// `confab up`) is reported, and what is written meanwhile waits in the outbox.
    private func attach(_ messenger: any Messenger) async throws {
        let events = try await messenger.events(for: nil)
        tasks.append(
            Task { [continuation] in
                for await event in events { continuation.yield(.node(event)) }
                continuation.yield(.nodeGone)
            })
    }

    private func apply(_ event: NodeEvent) async throws {
        switch event {
        case .message(let message):
            try await perform(state.apply(.message(message)))
        case .edited(let message), .deleted(let message), .reaction(let message, _):
            try await perform(state.apply(.messageChanged(message)))
        case .status(let conversation, let seq, let status):
            try await perform(state.apply(.status(conversation, seq: seq, status)))
        case .typing(let typing):
            try await perform(state.apply(.typing(typing)))
        case .peerOnline, .peerOffline:
            // Presence is refreshed as a whole (names and verification come from the store).
            continuation.yield(.tick)
        case .changed(let conversation):
            try await reload(conversation)
        case .members(let line):
            // Members, names and the history's system line all change: read it again.
            try await reload(line.conversationID)
        case .file(let file):
            // The file message shows how much of it is here: it reads anew.
            if let message = try await messenger.message(
                MessageRef(author: file.author, seq: file.seq), in: file.conversationID)
            {
                try await perform(state.apply(.messageChanged(message)))
            }
        case .filePeer(let conversation, let seq, let peer, let held, let complete):
            try await perform(
                state.apply(.filePeer(conversation, seq: seq, peer: peer, held: held, complete: complete)))
        case .link:
            // A link offer the web app opened: the full-screen chat makes none of its own.
            break
        }
    }

    func refreshPeers() async {
        guard online else { return }
        _ = try? await perform([.loadPeers])
        if let outstanding = try? await messenger.status().outstanding {
            let progress = syncBaseline.update(outstanding: outstanding)
            _ = try? await perform(
                state.apply(.syncProgress(received: progress.received, expected: progress.expected)))
        }
    }

    /// The store changed in a way no message event describes (another process wrote, a
    /// flag changed): the list is read again, and the open chat if it is concerned.
    private func reload(_ conversation: ConversationID?) async throws {
        try await perform([.loadConversations(includeArchived: false)])
        guard let open = state.openConversation, conversation == nil || conversation == open else { return }
        for message in try await messenger.history(open, limit: ChatEffectPerformer.pageSize).messages {
            try await perform(state.apply(.message(message)))
        }
    }

    // MARK: Drawing

    func draw() {
        screen.draw(ChatScreen.render(state, now: Date(), calendar: calendar, colors: colors))
    }

    /// Node events can come in floods (a large sync): draw at most every 30 ms for them.
    private func scheduleRender() {
        guard renderTask == nil else { return }
        renderTask = Task { [continuation] in
            try? await Task.sleep(for: .milliseconds(30))
            continuation.yield(.render)
        }
    }
}
