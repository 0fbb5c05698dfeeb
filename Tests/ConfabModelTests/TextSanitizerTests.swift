import ConfabModel
import Testing

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

@Suite struct QuotedTextTests {
    @Test func controlsFormatCharactersAndLineBreaksAreEscaped() {
        let hostile = "bye\u{1B}[2K\r\nfake\u{9B}1m\u{202E}\u{200B}\u{2028}\"\\"
        #expect(TextSanitizer.quoted(hostile) == #""bye\u{1B}[2K\r\nfake\u{9B}1m\u{202E}\u{200B}\u{2028}\"\\""#)
    }

    @Test func ordinaryTextIsOnlyQuoted() {
        #expect(TextSanitizer.quoted("Zoë 👨‍👩‍👧 (ok)") == "\"Zoë 👨\\u{200D}👩\\u{200D}👧 (ok)\"")
        #expect(TextSanitizer.quoted("bob") == "\"bob\"")
    }
}
