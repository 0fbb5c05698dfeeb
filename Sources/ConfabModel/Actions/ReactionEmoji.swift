/// What may be a reaction (Protocol.md §4.5): one emoji — exactly one grapheme cluster of at
/// most `Limits.maxReactionBytes` bytes of UTF-8 whose first scalar is an emoji, with
/// nothing in it that moves the cursor, reorders text or draws nothing. Readers check it
/// again: a reaction that breaks it changes nothing shown.
public enum ReactionEmoji {
    /// The emoji as it is sent and compared: an emoji that has a text form by default (❤,
    /// ☺) gets the emoji presentation selector U+FE0F, so "❤" and "❤️" are one reaction.
    /// Nil when `text` is not one allowed emoji.
    public static func normalized(_ text: String) -> String? {
        var scalars = Array(text.unicodeScalars)
        if scalars.count == 1, let only = scalars.first, only.properties.isEmoji, !only.properties.isEmojiPresentation,
            only.value > 0x7F
        {
            scalars.append("\u{FE0F}")
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        let emoji = String(view)
        return isValid(emoji) ? emoji : nil
    }

    /// Whether `emoji` is a reaction as received may be.
    public static func isValid(_ emoji: String) -> Bool {
        guard emoji.count == 1, (1...Limits.maxReactionBytes).contains(emoji.utf8.count),
            let first = emoji.unicodeScalars.first,
            first.properties.isEmoji, first.value > 0x7F || emoji.unicodeScalars.count > 1
        else { return false }
        return emoji.unicodeScalars.allSatisfy(isAllowed)
    }

    /// Scalars an emoji is made of: no controls, no line breaks or spaces, no bidi
    /// controls. Joiners, variation selectors, skin tones, keycaps and the tag characters
    /// of subdivision flags are part of emoji and stay.
    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F..<0xA0, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C:
            return false
        default:
            return !scalar.properties.isWhitespace
        }
    }
}
