import Testing

@testable import ConfabTUI

@Suite struct FrameTests {
    @Test func linesAreFittedToTheWidth() {
        var frame = Frame(width: 6, height: 2)
        frame.set(0, ScreenLine("hello world"))
        frame.set(1, ScreenLine("hi"))
        #expect(frame.text == ["hello…", "hi    "])
        #expect(frame.lines.allSatisfy { $0.width == 6 })
    }

    @Test func wideCharactersKeepColumnsAligned() {
        var frame = Frame(width: 5, height: 1)
        frame.set(0, ScreenLine("日本語"))
        #expect(frame.lines[0].width == 5)
        #expect(frame.text[0] == "日本…")
    }

    @Test func panesArePlacedSideBySide() {
        var frame = Frame(width: 10, height: 2)
        frame.place([ScreenLine("left"), ScreenLine("L")], top: 0, left: 0, width: 4)
        frame.place([ScreenLine("│right"), ScreenLine("│R")], top: 0, left: 4, width: 6)
        #expect(frame.text == ["left│right", "L   │R    "])
    }

    @Test func aWideCharacterCutByAPaneBecomesSpaces() {
        var frame = Frame(width: 4, height: 1)
        frame.set(0, ScreenLine("日本"))
        frame.place([ScreenLine("x")], top: 0, left: 1, width: 1)
        #expect(frame.lines[0].width == 4)
        #expect(frame.text[0] == " x本")
    }
}
