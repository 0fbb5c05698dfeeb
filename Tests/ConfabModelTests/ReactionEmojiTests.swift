import ConfabModel
import Testing

/// What may be a reaction (Protocol.md §4.5): what every reader applies alike (bounded, not
/// only ASCII, nothing that moves the cursor or draws nothing, by fixed lists), and what is
/// sent and shown (one emoji, as this platform's Unicode knows it).
@Suite struct ReactionEmojiTests {
    @Test(arguments: [
        "👍", "❤️", "🎉", "👍🏽", "👨‍👩‍👧‍👦", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "1️⃣", "🇫🇷", "☺️", "👩🏽‍❤️‍💋‍👨🏿",
    ])
    func emojiAreReactions(_ emoji: String) {
        #expect(ReactionEmoji.isValid(emoji))
        #expect(ReactionEmoji.isOneEmoji(emoji))
        #expect(ReactionEmoji.normalized(emoji) == emoji)
    }

    @Test(arguments: [
        "", "a", "1", "#", "ok", " 👍", "👍 ", "\n", "\u{1B}[31m", "\u{202E}👍", "👍\u{200F}", "\u{0007}",
        "👍\u{3000}", "👍\u{202F}", "\u{00A0}👍", String(repeating: "👍\u{200D}", count: 20) + "👍",
    ])
    func otherTextIsNeitherAppliedNorSent(_ text: String) {
        #expect(!ReactionEmoji.isValid(text))
        #expect(!ReactionEmoji.isOneEmoji(text))
        #expect(ReactionEmoji.normalized(text) == nil)
    }

    /// Issue 34, point 5: whether a reaction is applied must not depend on the Unicode a
    /// node knows, or nodes would disagree on which reactions are on. Two emoji, a letter,
    /// and a scalar no Unicode has assigned yet (an emoji of a later version, say) are
    /// applied on every node; none is sent by this one, nor shown as a reaction.
    @Test(arguments: ["👍👍", "é", "中", "ok👍", "\u{3FFFD}"])
    func appliedAlikeEverywhereButNotOneEmojiHere(_ text: String) {
        #expect(ReactionEmoji.isValid(text))
        #expect(!ReactionEmoji.isOneEmoji(text))
        #expect(ReactionEmoji.normalized(text) == nil)
    }

    @Test func aTextStyleEmojiGetsItsEmojiFormSoBothCountAsOne() {
        #expect(ReactionEmoji.normalized("❤") == "❤️")
        #expect(ReactionEmoji.normalized("☺") == "☺️")
        #expect(ReactionEmoji.isValid("❤"), "a reader takes either form")
        #expect(ReactionEmoji.isOneEmoji("❤"))
    }

    @Test func theByteLimitHolds() {
        let longest = "👩🏽‍❤️‍💋‍👨🏿"
        #expect(longest.utf8.count <= Limits.maxReactionBytes)
        // One grapheme of many skin tones is still one character, and too long.
        let piled = "👍" + String(repeating: "\u{1F3FB}", count: 20)
        #expect(!ReactionEmoji.isValid(piled))
    }
}
