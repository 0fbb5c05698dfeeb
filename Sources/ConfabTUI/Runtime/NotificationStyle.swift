/// How a message in a conversation that is not open is announced. Muted conversations
/// are never announced.
public enum NotificationStyle: String, Sendable, CaseIterable {
    /// The terminal bell (most terminals flash or mark the tab).
    case bell
    /// A desktop notification through `notify-send`, or the bell where there is none.
    case desktop
    case off
}
