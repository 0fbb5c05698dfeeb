/// What may be a reaction (Protocol.md §4.5), in two rules.
///
/// What a reader checks before it applies a reaction (`isValid`) must give the same answer on
/// every node, whatever Unicode its platform knows, or nodes would disagree on which
/// reactions are on: at most `Limits.maxReactionBytes` bytes of UTF-8, not only ASCII, and
/// nothing from fixed lists of scalars that move the cursor, reorder text or draw nothing.
///
/// What a writer sends, and what a reader shows (`isOneEmoji`), is one emoji as this
/// platform's Unicode knows it: one grapheme cluster whose first scalar is an emoji. Both
/// grow with Unicode versions, so they only decide what is offered and drawn, never what is
/// applied: a reaction a newer node can send and an older one cannot draw is on everywhere,
/// and shown where it is known.
public enum ReactionEmoji {
    /// The emoji as it is sent and compared: an emoji that has a text form by default (❤,
    /// ☺) gets the emoji presentation selector U+FE0F, so "❤" and "❤️" are one reaction.
    /// Nil when `text` is not one emoji.
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
        return isOneEmoji(emoji) ? emoji : nil
    }

    /// Whether a reaction as received is applied: the same answer on every node.
    public static func isValid(_ emoji: String) -> Bool {
        (1...Limits.maxReactionBytes).contains(emoji.utf8.count)
            && emoji.unicodeScalars.contains { $0.value > 0x7F }
            && emoji.unicodeScalars.allSatisfy(isAllowed)
    }

    /// Whether `emoji` is one emoji as this platform's Unicode knows it: what may be sent,
    /// and what is shown.
    public static func isOneEmoji(_ emoji: String) -> Bool {
        guard isValid(emoji), emoji.count == 1, let first = emoji.unicodeScalars.first, first.properties.isEmoji,
            first.value > 0x7F || emoji.unicodeScalars.count > 1
        else { return false }
        return true
    }

    /// Scalars an emoji is made of: no controls (C0, DEL, C1), no white space (Unicode's
    /// White_Space list, which has not changed since Unicode 6.3), no line or paragraph
    /// separators, no bidi controls. Fixed lists, not character properties, so that every
    /// node answers alike. Joiners, variation selectors, skin tones, keycaps and the tag
    /// characters of subdivision flags are part of emoji and stay.
    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x20, 0x7F...0xA0, 0x061C, 0x1680, 0x2000...0x200A, 0x200E, 0x200F, 0x2028...0x202F, 0x205F,
            0x2066...0x2069, 0x3000:
            return false
        default:
            return true
        }
    }
}
