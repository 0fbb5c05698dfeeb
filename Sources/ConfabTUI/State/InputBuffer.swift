import ConfabModel

/// Editable text with a cursor, for the message input and the fields of overlays. Works on
/// characters (grapheme clusters), so the cursor never lands inside an emoji or an accent.
struct InputBuffer: Sendable, Equatable {
    private(set) var characters: [Character] = []
    /// Index into `characters`: the cursor sits before that character.
    private(set) var cursor = 0

    init(_ text: String = "") {
        characters = Array(text)
        cursor = characters.count
    }

    var text: String { String(characters) }
    var isEmpty: Bool { characters.isEmpty }
    /// Nothing but spaces and newlines: not worth sending.
    var isBlank: Bool { characters.allSatisfy { $0.isWhitespace } }

    mutating func insert(_ character: Character) {
        characters.insert(character, at: cursor)
        cursor += 1
    }

    mutating func insert(_ text: String) {
        let inserted = Array(text)
        characters.insert(contentsOf: inserted, at: cursor)
        cursor += inserted.count
    }

    mutating func backspace() {
        guard cursor > 0 else { return }
        characters.remove(at: cursor - 1)
        cursor -= 1
    }

    mutating func deleteForward() {
        guard cursor < characters.count else { return }
        characters.remove(at: cursor)
    }

    mutating func moveLeft() { cursor = max(0, cursor - 1) }
    mutating func moveRight() { cursor = min(characters.count, cursor + 1) }

    /// To the start of the current line (the text between newlines).
    mutating func moveHome() {
        while cursor > 0, characters[cursor - 1] != "\n" { cursor -= 1 }
    }

    /// To the end of the current line.
    mutating func moveEnd() {
        while cursor < characters.count, characters[cursor] != "\n" { cursor += 1 }
    }

    mutating func clear() {
        characters = []
        cursor = 0
    }

    /// The usual editing keys; false when `key` is not one of them.
    mutating func edit(_ key: Key, multiline: Bool) -> Bool {
        switch key {
        case .character(let character):
            if character.isNewline {
                guard multiline else { insert(" "); return true }
                insert("\n")
            } else {
                insert(TextSanitizer.line(String(character)))
            }
        case .paste(let text):
            let clean = TextSanitizer.input(text)
            insert(multiline ? clean : clean.replacingOccurrences(of: "\n", with: " "))
        case .backspace: backspace()
        case .delete: deleteForward()
        case .left: moveLeft()
        case .right: moveRight()
        case .home: moveHome()
        case .end: moveEnd()
        default: return false
        }
        return true
    }
}
