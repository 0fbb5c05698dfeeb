/// A key press (or a paste), decoded from the terminal's bytes. The chat's key handling
/// sees only these, never escape sequences.
public enum Key: Hashable, Sendable {
    /// A printable character (already combined from its UTF-8 bytes).
    case character(Character)
    case enter
    /// Alt+Enter (ESC CR): a newline in the input instead of sending.
    case altEnter
    case tab
    case shiftTab
    case backspace
    case delete
    case escape
    case up, down, left, right
    case home, end
    case pageUp, pageDown
    /// Ctrl + a letter, lowercased ("c" for Ctrl+C). Tab, Enter, Backspace and Escape,
    /// which share control codes with Ctrl+I, Ctrl+M, Ctrl+H and Ctrl+[, decode as those.
    case control(Character)
    /// Alt + a printable character (ESC followed by it), e.g. Alt+1 … Alt+9.
    case alt(Character)
    /// Bracketed paste: the text as one unit, so a pasted newline does not send.
    case paste(String)
}
