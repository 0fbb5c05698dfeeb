import ConfabModel

/// What the chat asks the outside world to do after a key. The state and its key handling
/// stay pure; the runtime performs effects through the messenger (`ChatEffectPerformer`,
/// shared by both chats) and answers with `ChatUpdate`s.
public enum ChatEffect: Equatable, Sendable {
    /// Reload the conversation list (archived ones too when `includeArchived`).
    case loadConversations(includeArchived: Bool)
    /// Load the latest page of a conversation's history; with `around`, the page that
    /// holds that message (a search hit), so the chat can scroll to it.
    case openConversation(ConversationID, around: String?)
    /// Load the page of older messages before `before` (scrolling up past the top).
    case loadOlder(ConversationID, before: DisplayOrderKey)
    /// Load the latest `limit` messages of a conversation (the plain chat's `/history N`).
    case loadHistory(ConversationID, limit: Int)
    /// A message, a reply to `replyTo` when given.
    case send(ConversationID, text: String, replyTo: MessageRef? = nil)
    /// A new text for my message `seq`.
    case edit(ConversationID, seq: UInt64, text: String)
    /// Send a file, or a folder as a tree (`/file PATH` in the input bar).
    case sendFile(ConversationID, path: String)
    /// Save a received file into `folder` (else the downloads folder), or accept one
    /// waiting for it, then save it.
    case saveFile(FileInfo, folder: String? = nil)
    /// The files of a conversation (the plain chat's `/files`).
    case listFiles(ConversationID)
    /// Complete the path being typed after `/file ` (Tab); the answer is `.completion`.
    case completePath(String)
    /// Delete my message `seq` for everyone; confirmed by the user already.
    case unsend(ConversationID, seq: UInt64)
    /// My reaction `emoji` to a message, added or taken back.
    case react(ConversationID, target: MessageRef, emoji: String, removed: Bool)
    /// The open conversation was seen up to its newest message: mark it read (the read
    /// receipt travels to the other participants).
    case markRead(ConversationID)
    case setArchived(ConversationID, Bool)
    case setPinned(ConversationID, Bool)
    case setMarkedUnread(ConversationID, Bool)
    /// Confirmed by the user already.
    case delete(ConversationID)
    case search(String)
    case createConversation(participants: [NodeID], title: String?)
    /// I am typing in the conversation (`active`), or stopped: the runtime paces these and
    /// hands them to the node, which tells the participants online.
    case typing(ConversationID, active: Bool)
    /// Ctrl+T: share and see "is typing…", or not; kept in the store.
    case setTypingIndicators(Bool)
    /// A membership command typed in the input bar, for the open conversation.
    case members(ConversationID, MembersCommand)
    /// Join the room of this name (`/join NAME`, or `#NAME` as the title in Ctrl+K).
    case joinRoom(RoomName)
    /// The rooms joined and those peers are in (`/rooms`).
    case loadRooms
    /// My person's machines (`/devices`), or removing one (`/devices remove NAME`): asked
    /// about first unless the command says it is confirmed.
    case devices(DeviceCommand)
    /// Re-announce clocks to every peer and redial known peers now.
    case resync
    /// Who is known and who is online (the full-screen chat asks every second, the plain
    /// chat on `/peers`).
    case loadPeers
    /// Ring the bell or notify: a message arrived in a conversation that is not open.
    case notify(ChatMessage)
    case quit
    /// Ctrl+Z: give the terminal back and stop, as a shell's job, until `fg`.
    case suspend
}
