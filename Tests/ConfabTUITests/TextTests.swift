import ConfabModel
import Testing

@testable import ConfabTUI

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
