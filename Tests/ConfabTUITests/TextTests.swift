import ConfabModel
import Testing

@testable import ConfabTUI

@Suite struct TextSanitizerTests {
    @Test func escapeSequencesAndControlCharactersAreDropped() {
        let hostile = "a\u{1B}[2J\u{1B}[31mred\u{1B}]0;title\u{07}b\u{9B}1mc\u{07}\u{08}d\u{7F}"
        #expect(TextSanitizer.line(hostile) == "aredbcd")
    }

    @Test func anOSCEndedByStringTerminatorIsDroppedWhole() {
        #expect(TextSanitizer.line("x\u{1B}]8;;http://evil\u{1B}\\link\u{1B}]8;;\u{1B}\\y") == "xlinky")
    }

    @Test func bidiOverridesAreDroppedButEmojiJoinersStay() {
        let family = "👨\u{200D}👩\u{200D}👧"
        #expect(TextSanitizer.line("\u{202E}abc\u{2066}" + family) == "abc" + family)
    }

    @Test func everyKindOfLineBreakSplitsLines() {
        #expect(TextSanitizer.lines("one\r\ntwo\rthree\nfour\u{2028}five") == ["one", "two", "three", "four", "five"])
        #expect(TextSanitizer.line("one\ntwo\tthree") == "one two three")
    }

    @Test func emptyLinesAreKept() {
        #expect(TextSanitizer.lines("a\n\nb\n") == ["a", "", "b", ""])
    }
}

@Suite struct TextWrapTests {
    @Test func wrapsAtSpaces() {
        #expect(TextWrap.wrap("the quick brown fox", width: 10) == ["the quick", "brown fox"])
    }

    @Test func breaksWordsLongerThanALine() {
        #expect(TextWrap.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
    }

    @Test func wideCharactersNeverOverflow() {
        let lines = TextWrap.wrap("日本語のテキストです", width: 5)
        #expect(lines == ["日本", "語の", "テキ", "スト", "です"])
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 5 })
    }

    @Test func emojiCountTwoColumns() {
        let lines = TextWrap.wrap("😀😀😀 ok", width: 4)
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 4 })
        #expect(lines.joined() == "😀😀😀ok")
    }

    @Test func anEmptyLineStaysALine() {
        #expect(TextWrap.wrap("", width: 10) == [""])
    }

    @Test func numbersAreGroupedByThousands() {
        #expect(NumberText.grouped(0) == "0")
        #expect(NumberText.grouped(999) == "999")
        #expect(NumberText.grouped(1234) == "1,234")
        #expect(NumberText.grouped(1_234_567) == "1,234,567")
    }
}

@Suite struct InputBufferTests {
    @Test func editsAtTheCursor() {
        var buffer = InputBuffer("helo")
        buffer.moveLeft()
        buffer.insert("l")
        #expect(buffer.text == "hello")
        buffer.moveHome()
        buffer.deleteForward()
        #expect(buffer.text == "ello")
        buffer.moveEnd()
        buffer.backspace()
        #expect(buffer.text == "ell")
        #expect(buffer.cursor == 3)
    }

    @Test func homeAndEndStayOnTheCurrentLine() {
        var buffer = InputBuffer("first\nsecond")
        buffer.moveHome()
        #expect(buffer.cursor == 6)
        buffer.moveLeft()
        buffer.moveHome()
        #expect(buffer.cursor == 0)
        buffer.moveEnd()
        #expect(buffer.cursor == 5)
    }

    @Test func pasteKeepsNewlinesButNotEscapes() {
        var buffer = InputBuffer()
        let handled = buffer.edit(.paste("a\r\nb\u{1B}[31mc"), multiline: true)
        #expect(handled)
        #expect(buffer.text == "a\nbc")
        var field = InputBuffer()
        _ = field.edit(.paste("a\nb"), multiline: false)
        #expect(field.text == "a b")
    }

    @Test func blankMeansOnlyWhitespace() {
        #expect(InputBuffer(" \n  ").isBlank)
        #expect(!InputBuffer(" x ").isBlank)
    }
}
