import ConfabClient
import ConfabModel
import ConfabStore
import Foundation

/// What the runtime tells the chat: results of effects and things that happened.
public enum ChatUpdate: Sendable {
    /// Who I am (drawn in the status bar and used for "You").
    case identity(name: String, id: NodeID)
    case conversations([ConversationSummary])
    /// The latest page of a conversation (oldest first), or the page around a message.
    /// `hasOlder` says whether scrolling up can load more.
    case history(ConversationID, [ChatMessage], hasOlder: Bool, focus: String?)
    /// A page of older messages, to put above the loaded ones.
    case olderHistory(ConversationID, [ChatMessage], hasOlder: Bool)
    /// A message stored here: received, or written by me (here or by another process).
    case message(ChatMessage)
    /// A message its author edited or deleted for everyone, as it reads now: it replaces the
    /// one shown (and the list's preview, if that is the one), and is never news — no
    /// unread count, no notification.
    case messageChanged(ChatMessage)
    /// One of my messages moved (sending → sent → delivered → read).
    case status(ConversationID, seq: UInt64, DeliveryStatus)
    /// Every known peer with presence; `verified` holds the keys whose safety number the
    /// user confirmed.
    case peers([PeerPresence], verified: Set<NodeID>)
    case searchResults(query: String, [SearchHit])
    /// A conversation was just created (by Ctrl+K): open it.
    case created(ConversationID)
    /// Entries received of those the peers' clocks announce, while a sync is running;
    /// `expected` 0 when nothing is outstanding.
    case syncProgress(received: Int, expected: Int)
    /// A peer started or stopped typing (the node's event).
    case typing(TypingEvent)
    /// The node went away: nobody is shown typing any more.
    case typingCleared
    /// How much of one of my files a recipient's node holds (`complete` once whole).
    case filePeer(ConversationID, seq: UInt64, peer: NodeID, held: UInt64, complete: Bool)
    /// The members of a conversation, its admin and former members (`/members`).
    case memberList(MemberList)
    /// The rooms joined here and those peers in session are in.
    case rooms([RoomListing])
    /// What a device command answers: the list, the device to confirm, the removal done.
    case devices(DeviceAnswer)
    /// The files of a conversation, oldest first (`/files`).
    case files(ConversationID, [FileInfo])
    /// A file was written out (`savedTo`), or is being fetched first (nil).
    case fileSave(FileInfo, savedTo: String?)
    /// Clocks were re-announced to every peer and known peers redialled.
    case resynced
    /// The input bar's text with the path completed (Tab after `/file `).
    case completion(String)
    /// A short message for the status line (an error the user should see, a confirmation).
    case notice(String)
}
