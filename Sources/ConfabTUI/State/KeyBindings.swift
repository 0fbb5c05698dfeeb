/// Every key the chat understands, as the help overlay lists them. Kept beside the key
/// handling so a binding and its description change together.
enum KeyBindings {
    struct Binding: Sendable {
        let keys: String
        let action: String
    }

    struct Section: Sendable {
        let title: String
        let bindings: [Binding]
    }

    static let sections: [Section] = [
        Section(
            title: "Everywhere",
            bindings: [
                Binding(keys: "Tab / Shift+Tab", action: "Move between the list and the chat"),
                Binding(keys: "Alt+1 … Alt+9", action: "Open the Nth conversation"),
                Binding(keys: "Ctrl+N / Ctrl+P", action: "Open the next / previous conversation"),
                Binding(keys: "Ctrl+U", action: "Open the next unread conversation"),
                Binding(keys: "Ctrl+K", action: "New conversation"),
                Binding(keys: "Ctrl+R", action: "Resync with peers now"),
                Binding(keys: "Ctrl+T", action: "Typing indicators on / off (yours and others')"),
                Binding(keys: "Ctrl+Z", action: "Suspend (fg comes back)"),
                Binding(keys: "Ctrl+C", action: "Quit"),
            ]),
        Section(
            title: "Conversation list",
            bindings: [
                Binding(keys: "↑ / ↓  j / k", action: "Select"),
                Binding(keys: "Enter", action: "Open"),
                Binding(keys: "/", action: "Search names, titles and messages"),
                Binding(keys: "a", action: "Archive / unarchive"),
                Binding(keys: "p", action: "Pin / unpin"),
                Binding(keys: "u", action: "Mark unread / read"),
                Binding(keys: "d", action: "Delete from this machine (asks first)"),
                Binding(keys: "A", action: "Show / hide archived conversations"),
                Binding(keys: "D", action: "Your devices (as /devices in a chat)"),
                Binding(keys: "?", action: "This help"),
                Binding(keys: "q", action: "Quit"),
            ]),
        Section(
            title: "Chat",
            bindings: [
                Binding(keys: "Enter", action: "Send"),
                Binding(keys: "Alt+Enter", action: "New line in the message"),
                Binding(keys: "← → Home End", action: "Move in the message"),
                Binding(keys: "↑ / ↓  PgUp / PgDn", action: "Scroll the messages"),
                Binding(keys: "Ctrl+E", action: "Select a message, the newest first (↑ / ↓ another)"),
                Binding(keys: "  then r", action: "Reply to it: Enter sends, Esc drops the reply"),
                Binding(keys: "  then +", action: "React with an emoji (yours again takes it back)"),
                Binding(keys: "  then g", action: "Go to the message a reply quotes (Enter too)"),
                Binding(keys: "  then e or Enter", action: "Edit it (yours): Enter saves, Esc cancels"),
                Binding(keys: "  then d", action: "Delete it for everyone (yours; asks first)"),
                Binding(keys: "  then Esc", action: "Done selecting"),
                Binding(keys: "/members", action: "Who is in the group, and its admin"),
                Binding(keys: "/add NAME…", action: "Add people (--history: with the past)"),
                Binding(keys: "/remove NAME…", action: "Remove people (the admin only)"),
                Binding(keys: "/leave", action: "Leave the group or room"),
                Binding(keys: "/rooms", action: "The rooms joined and those peers are in"),
                Binding(keys: "/join NAME", action: "Join a room (also: Ctrl+K, title #NAME)"),
                Binding(keys: "/devices", action: "Your devices; remove NAME removes one (asks first)"),
                Binding(keys: "Esc", action: "Drop the reply being written, else back to the list"),
            ]),
        Section(
            title: "Your devices (D, /devices)",
            bindings: [
                Binding(keys: "↑ / ↓  PgUp / PgDn", action: "Select a machine"),
                Binding(keys: "r or Delete", action: "Remove it (the person-key machine only; asks first)"),
                Binding(keys: "Esc or q", action: "Close"),
            ]),
        Section(
            title: "New conversation (Ctrl+K)",
            bindings: [
                Binding(keys: "↑ / ↓  Space", action: "Choose people"),
                Binding(keys: "Tab", action: "Switch to the title field and back"),
                Binding(keys: "Enter", action: "Create"),
                Binding(keys: "Esc", action: "Cancel"),
            ]),
    ]
}
