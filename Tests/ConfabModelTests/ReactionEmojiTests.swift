import ConfabModel
import Testing

/// What may be a reaction (Protocol.md §4.5): one emoji, bounded, nothing that draws
/// anything else.
@Suite struct ReactionEmojiTests {
    @Test(arguments: [
        "👍", "❤️", "🎉", "👍🏽", "👨‍👩‍👧‍👦", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "1️⃣", "🇫🇷", "☺️", "👩🏽‍❤️‍💋‍👨🏿",
    ])
    func emojiAreReactions(_ emoji: String) {
        #expect(ReactionEmoji.isValid(emoji))
        #expect(ReactionEmoji.normalized(emoji) == emoji)
    }

    @Test(arguments: [
        "", "a", "1", "#", "ok", "👍👍", " 👍", "👍 ", "\n", "\u{1B}[31m", "\u{202E}👍", "👍\u{200F}", "\u{0007}",
        String(repeating: "👍\u{200D}", count: 20) + "👍", "é", "中",
    ])
    func otherTextIsNot(_ text: String) {
        #expect(!ReactionEmoji.isValid(text))
        #expect(ReactionEmoji.normalized(text) == nil)
    }

    @Test func aTextStyleEmojiGetsItsEmojiFormSoBothCountAsOne() {
        #expect(ReactionEmoji.normalized("❤") == "❤️")
        #expect(ReactionEmoji.normalized("☺") == "☺️")
        #expect(ReactionEmoji.isValid("❤"), "a reader takes either form")
    }

    @Test func theByteLimitHolds() {
        let longest = "👩🏽‍❤️‍💋‍👨🏿"
        #expect(longest.utf8.count <= Limits.maxReactionBytes)
        // One grapheme of many combining marks is still one character, and too long.
        let piled = "👍" + String(repeating: "\u{1F3FB}", count: 20)
        #expect(!ReactionEmoji.isValid(piled))
    }
}
