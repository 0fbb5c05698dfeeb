import ConfabClient
import ConfabModel
import ConfabStore

/// A box over the screen that takes the keys until it closes.
enum Overlay: Sendable {
    /// The key list, scrolled to its `top` line.
    case help(top: Int)
    case search(SearchPanel)
    case newConversation(NewConversationPanel)
    /// "Delete this conversation …? y/N" for that conversation.
    case confirmDelete(ConversationID)
    /// "Delete this message for everyone? y/N" for my message `seq` in that conversation.
    case confirmUnsend(ConversationID, seq: UInt64)
    /// "Remove laptop (1e2a 137c)? … y/N" for one of my machines (`/devices remove NAME`, or
    /// `r` in the device list, which `from` keeps to go back to).
    case confirmRemoveDevice(DeviceListing.Device, from: DevicesPanel?)
    /// My person's machines, one a line (`/devices`, or `D` on the list).
    case devices(DevicesPanel)
    /// Pick an emoji for (or take one back from) a message.
    case react(ReactPanel)
}

/// The reaction picker: a row of common emoji chosen by number or ←/→ and Enter, or any
/// emoji typed into its field. One I already have there is taken back when chosen.
struct ReactPanel: Sendable {
    static let quick = ["👍", "❤️", "😂", "😮", "😢", "🙏", "🎉", "👀"]

    let conversation: ConversationID
    let message: ChatMessage
    /// The quick emoji under the cursor.
    var cursor = 0
    var typed = InputBuffer()

    /// The emoji I have on the message now.
    var mine: Set<String> { Set(message.reactions.filter(\.includesMe).map(\.emoji)) }
}

/// The search box: the query, and the hits for it once they arrive.
struct SearchPanel: Sendable {
    var query = InputBuffer()
    var hits: [SearchHit] = []
    var selected = 0
    /// The query the hits answer; results for an older query are dropped.
    var answered: String?
}

/// Ctrl+K: pick people, optionally name the thread.
struct NewConversationPanel: Sendable {
    enum Field: Sendable {
        case people
        case title
    }

    var field = Field.people
    /// Index into the candidate list.
    var cursor = 0
    /// Chosen people, in the order they were chosen.
    var chosen: [NodeID] = []
    var title = InputBuffer()

    mutating func toggle(_ id: NodeID) {
        if let index = chosen.firstIndex(of: id) {
            chosen.remove(at: index)
        } else {
            chosen.append(id)
        }
    }
}
