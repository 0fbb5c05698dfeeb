import Testing

@testable import ConfabTUI

@Suite struct FrameRendererTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    private func frame(_ rows: [ScreenLine], width: Int, cursor: Frame.Cursor? = nil) -> Frame {
        var frame = Frame(width: width, height: rows.count)
        for (row, line) in rows.enumerated() { frame.set(row, line) }
        frame.cursor = cursor
        return frame
    }

    @Test func theFirstFrameIsDrawnInFullOnAClearedScreen() {
        var renderer = FrameRenderer()
        let first = frame([ScreenLine("ab"), ScreenLine("c")], width: 3, cursor: .init(row: 1, column: 1))
        #expect(
            text(renderer.render(first))
                == "\u{1B}[?25l\u{1B}[0m\u{1B}[2J\u{1B}[1;1Hab \u{1B}[2;1Hc  \u{1B}[2;2H\u{1B}[?25h")
    }

    @Test func stylesAreSetPerSpanAndResetAtTheEndOfTheRow() {
        var renderer = FrameRenderer()
        var line = ScreenLine("x", TextStyle(foreground: .red, bold: true))
        line.append("y", TextStyle(background: .brightBlue, underline: true, reverse: true))
        line.append("z")
        var selected = ScreenLine()
        selected.append("s", TextStyle(foreground: .brightBlack, dim: true, italic: true))
        let output = text(renderer.render(frame([line, selected], width: 3)))
        #expect(
            output
                == "\u{1B}[?25l\u{1B}[0m\u{1B}[2J"
                + "\u{1B}[1;1H\u{1B}[0;1;31mx\u{1B}[0;4;7;104my\u{1B}[0mz"
                + "\u{1B}[2;1H\u{1B}[0;2;3;90ms\u{1B}[0m  ")
    }

    @Test func withoutColorsAttributesRemain() {
        var renderer = FrameRenderer(colors: false)
        let line = ScreenLine("x", TextStyle(foreground: .red, background: .white, bold: true, reverse: true))
        let plainRed = ScreenLine("y", TextStyle(foreground: .red))
        #expect(
            text(renderer.render(frame([line, plainRed], width: 1)))
                == "\u{1B}[?25l\u{1B}[0m\u{1B}[2J\u{1B}[1;1H\u{1B}[0;1;7mx\u{1B}[0m\u{1B}[2;1Hy")
    }

    @Test func aOneRowChangeRedrawsOnlyThatRow() {
        var renderer = FrameRenderer()
        let before = frame([ScreenLine("one"), ScreenLine("two"), ScreenLine("six")], width: 4)
        _ = renderer.render(before)
        let after = frame([ScreenLine("one"), ScreenLine("ten"), ScreenLine("six")], width: 4)
        #expect(text(renderer.render(after)) == "\u{1B}[?25l\u{1B}[2;1Hten ")
    }

    @Test func anIdenticalFrameWritesNothing() {
        var renderer = FrameRenderer()
        let same = frame([ScreenLine("same")], width: 4, cursor: .init(row: 0, column: 2))
        _ = renderer.render(same)
        #expect(renderer.render(same).isEmpty)
    }

    @Test func aCursorMoveAloneOnlyMovesTheCursor() {
        var renderer = FrameRenderer()
        var current = frame([ScreenLine("abc")], width: 4, cursor: .init(row: 0, column: 1))
        _ = renderer.render(current)
        current.cursor = .init(row: 0, column: 3)
        #expect(text(renderer.render(current)) == "\u{1B}[1;4H\u{1B}[?25h")
        current.cursor = nil
        #expect(text(renderer.render(current)) == "\u{1B}[?25l")
    }

    @Test func theCursorStaysHiddenWhenTheFrameHasNone() {
        var renderer = FrameRenderer()
        _ = renderer.render(frame([ScreenLine("a")], width: 1))
        #expect(text(renderer.render(frame([ScreenLine("b")], width: 1))) == "\u{1B}[?25l\u{1B}[1;1Hb")
    }

    @Test func aSizeChangeRedrawsEverything() {
        var renderer = FrameRenderer()
        _ = renderer.render(frame([ScreenLine("a"), ScreenLine("b")], width: 2))
        #expect(
            text(renderer.render(frame([ScreenLine("a"), ScreenLine("b")], width: 3)))
                == "\u{1B}[?25l\u{1B}[0m\u{1B}[2J\u{1B}[1;1Ha  \u{1B}[2;1Hb  ")
    }

    @Test func invalidateForcesAFullRedraw() {
        var renderer = FrameRenderer()
        let same = frame([ScreenLine("a")], width: 1)
        _ = renderer.render(same)
        renderer.invalidate()
        #expect(text(renderer.render(same)) == "\u{1B}[?25l\u{1B}[0m\u{1B}[2J\u{1B}[1;1Ha")
    }

    @Test func wideCharactersAreWrittenAsUTF8AndFillTheirColumns() {
        var renderer = FrameRenderer()
        _ = renderer.render(frame([ScreenLine("ab"), ScreenLine("cd")], width: 5))
        let after = frame([ScreenLine("日本語"), ScreenLine("cd")], width: 5, cursor: .init(row: 0, column: 4))
        // "日本…" fills 5 columns: two wide characters and the ellipsis, no padding.
        let output = renderer.render(after)
        #expect(text(output) == "\u{1B}[?25l\u{1B}[1;1H日本…\u{1B}[1;5H\u{1B}[?25h")
        #expect(output.count == 6 + 6 + 9 + 6 + 6)
    }

    @Test func controlCharactersInTextNeverReachTheTerminal() {
        var renderer = FrameRenderer()
        var line = ScreenLine()
        line.append("a\u{1B}[2Jb\u{9B}c", .plain)
        #expect(text(renderer.render(frame([line], width: 6))) == "\u{1B}[?25l\u{1B}[0m\u{1B}[2J\u{1B}[1;1Ha[2Jbc")
    }

    @Test func theCursorIsKeptInsideTheFrame() {
        var renderer = FrameRenderer()
        let output = text(renderer.render(frame([ScreenLine("ab")], width: 2, cursor: .init(row: 5, column: 2))))
        #expect(output.hasSuffix("\u{1B}[1;2H\u{1B}[?25h"))
    }
}
