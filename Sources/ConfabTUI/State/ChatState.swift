import ConfabClient
import ConfabModel
import Foundation

/// Everything the full-screen chat shows, and the rules for how keys and news change it.
/// Pure: keys and updates go in, effects for the runtime come out, and `ChatScreen`
/// draws it. Nothing here does I/O or reads the clock.
public struct ChatState: Sendable {
    enum Focus: Equatable, Sendable {
        case list
        /// The open chat: typing goes to the input bar.
        case chat
    }

    var me: NodeID
    var myName: String
    private(set) var width: Int
    private(set) var height: Int
    /// Decides where date separators fall, which the scroll position depends on; the
    /// runtime sets it to the calendar it renders with.
    public var calendar: Calendar = .current

    /// Every loaded conversation, pinned first, then newest activity.
    var conversations: [ConversationSummary] = []
    var showArchived = false
    var selectedID: ConversationID?
    /// First list row on screen.
    var listTop = 0
    var focus: Focus
    var chat: OpenChat?
    var input = InputBuffer()
    /// Unsent text of conversations that are not open.
    var drafts: [ConversationID: InputBuffer] = [:]
    var overlay: Overlay?
    var peers: [PeerPresence] = []
    var verified: Set<NodeID> = []
    /// Whether I share "is typing…" and see others' (Ctrl+T; the store keeps it).
    var typingIndicators = true
    /// Who is typing now, per conversation, in the order they started (the node's events).
    var typing: [ConversationID: [TypingEvent]] = [:]
    /// Where I was last said to be typing, until a stop is said.
    var typingIn: ConversationID?
    var syncReceived = 0
    var syncExpected = 0
    var notice: String?
    /// My highest seq seen per conversation: a status update for it is the status of the
    /// list preview when my message is the last one.
    var lastOwnSeq: [ConversationID: UInt64] = [:]
    public internal(set) var wantsQuit = false

    public init(
        me: NodeID, myName: String, lastOpen: ConversationID?, width: Int, height: Int, typingIndicators: Bool = true
    ) {
        self.me = me
        self.myName = myName
        self.typingIndicators = typingIndicators
        self.width = max(0, width)
        self.height = max(0, height)
        if let lastOpen {
            chat = OpenChat(id: lastOpen)
            selectedID = lastOpen
            focus = .chat
        } else {
            focus = .list
        }
    }

    /// The conversation shown in the chat pane; the runtime keeps it as "last open chat".
    public var openConversation: ConversationID? { chat?.id }

    var layout: Layout { Layout(width: width, height: height) }

    /// Whether the person can see the chat pane right now: always on a wide screen, only
    /// with the chat focused on a narrow one.
    var chatIsVisible: Bool { chat != nil && (layout.mode == .wide || focus == .chat) }

    public mutating func resize(width: Int, height: Int) -> [ChatEffect] {
        self.width = max(0, width)
        self.height = max(0, height)
        return settle()
    }
}
