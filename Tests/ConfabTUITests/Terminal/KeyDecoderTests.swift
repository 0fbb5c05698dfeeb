import Testing

@testable import ConfabTUI

@Suite struct KeyDecoderTests {
    /// Decodes `bytes` fed at once, then fed one byte per read, then as a sequence without
    /// contiguous storage (decoded element by element rather than through a pointer): all
    /// must give `expected` (a read may end anywhere).
    private func expectKeys(
        _ bytes: [UInt8], _ expected: [Key], flush: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var whole = KeyDecoder()
        var keys = whole.feed(bytes)
        if flush { keys += whole.flushPendingEscape() }
        #expect(keys == expected, "fed at once", sourceLocation: sourceLocation)

        var split = KeyDecoder()
        var splitKeys: [Key] = []
        for byte in bytes { splitKeys += split.feed([byte]) }
        if flush { splitKeys += split.flushPendingEscape() }
        #expect(splitKeys == expected, "fed byte by byte", sourceLocation: sourceLocation)

        var lazy = KeyDecoder()
        var lazyKeys = lazy.feed(bytes.lazy.map { $0 })
        if flush { lazyKeys += lazy.flushPendingEscape() }
        #expect(lazyKeys == expected, "fed as a non-contiguous sequence", sourceLocation: sourceLocation)
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func printableASCII() {
        expectKeys(bytes("hi!"), [.character("h"), .character("i"), .character("!")])
    }

    @Test func multiByteCharactersSplitAcrossReads() {
        expectKeys(bytes("é日😀"), [.character("é"), .character("日"), .character("😀")])
        var decoder = KeyDecoder()
        let emoji = bytes("😀")
        #expect(decoder.feed(emoji[0..<1]).isEmpty)
        #expect(decoder.feed(emoji[1..<3]).isEmpty)
        #expect(decoder.feed(emoji[3...]) == [.character("😀")])
    }

    @Test func invalidUTF8IsDropped() {
        // A stray continuation byte, an overlong "/", a surrogate, a lead byte cut short by
        // ASCII, bytes no UTF-8 has, and a C1 control.
        let input: [UInt8] =
            [0x80, UInt8(ascii: "a"), 0xC0, 0xAF, 0xED, 0xA0, 0x80, 0xE6, 0x97, UInt8(ascii: "b"), 0xFF, 0xF5]
            + [0xC2, 0x9B, UInt8(ascii: "c")]
        expectKeys(input, [.character("a"), .character("b"), .character("c")])
    }

    @Test func enterFromCROrLFAndCRLFOnce() {
        expectKeys([0x0D], [.enter])
        expectKeys([0x0A], [.enter])
        expectKeys([0x0D, 0x0A], [.enter])
        expectKeys([0x0D, 0x0D], [.enter, .enter])
        expectKeys([0x0A, 0x0A], [.enter, .enter])
        expectKeys([0x0D, 0x0A, 0x0D, 0x0A], [.enter, .enter])
        expectKeys([0x0D, UInt8(ascii: "x"), 0x0A], [.enter, .character("x"), .enter])
    }

    @Test func altEnter() {
        expectKeys([0x1B, 0x0D], [.altEnter])
        expectKeys([0x1B, 0x0A], [.altEnter])
        expectKeys([0x1B, 0x0D, 0x0A], [.altEnter])
    }

    @Test func tabShiftTabBackspace() {
        expectKeys([0x09], [.tab])
        expectKeys(bytes("\u{1B}[Z"), [.shiftTab])
        expectKeys([0x7F, 0x08], [.backspace, .backspace])
    }

    @Test func controlLetters() {
        expectKeys(
            [0x01, 0x03, 0x0B, 0x11, 0x13, 0x1A],
            [
                .control("a"), .control("c"), .control("k"), .control("q"), .control("s"), .control("z"),
            ])
        // NUL and Ctrl+\ … Ctrl+_ are no keys of ours.
        expectKeys([0x00, 0x1C, 0x1D, 0x1E, 0x1F], [])
    }

    @Test func arrowsInBothModes() {
        expectKeys(bytes("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D"), [.up, .down, .right, .left])
        expectKeys(bytes("\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD"), [.up, .down, .right, .left])
    }

    @Test func homeEndInEveryForm() {
        let sequences = [
            "\u{1B}[H", "\u{1B}OH", "\u{1B}[1~", "\u{1B}[7~", "\u{1B}[F", "\u{1B}OF", "\u{1B}[4~", "\u{1B}[8~",
        ]
        expectKeys(bytes(sequences.joined()), [.home, .home, .home, .home, .end, .end, .end, .end])
    }

    @Test func pageKeysAndDelete() {
        expectKeys(bytes("\u{1B}[5~\u{1B}[6~\u{1B}[3~"), [.pageUp, .pageDown, .delete])
    }

    @Test func modifiersAreDropped() {
        expectKeys(
            bytes("\u{1B}[1;5A\u{1B}[1;3D\u{1B}[5;5~\u{1B}[3;2~\u{1B}O5C"), [.up, .left, .pageUp, .delete, .right])
    }

    @Test func altWithCharacters() {
        expectKeys(bytes("\u{1B}1\u{1B}x\u{1B}é"), [.alt("1"), .alt("x"), .alt("é")])
    }

    @Test func altWithKeysThatCannotCarryIt() {
        expectKeys([0x1B, 0x7F, 0x1B, 0x03], [.backspace, .control("c")])
    }

    @Test func loneEscapeWaitsForTheTimeout() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.hasPendingEscape)
        #expect(decoder.flushPendingEscape() == [.escape])
        #expect(!decoder.hasPendingEscape)
        #expect(decoder.flushPendingEscape().isEmpty)
        #expect(decoder.feed(bytes("x")) == [.character("x")])
    }

    @Test func escapeTwice() {
        expectKeys([0x1B, 0x1B], [.escape, .escape], flush: true)
        expectKeys(bytes("\u{1B}\u{1B}[A"), [.escape, .up])
    }

    @Test func escapeBracketAloneIsAltBracket() {
        expectKeys(bytes("\u{1B}["), [.alt("[")], flush: true)
        expectKeys(bytes("\u{1B}O"), [.alt("O")], flush: true)
        // Cut off inside its parameters: nothing.
        expectKeys(bytes("\u{1B}[1;"), [], flush: true)
    }

    @Test func nothingPendingOutsideEscapes() {
        var decoder = KeyDecoder()
        _ = decoder.feed([0xE6, 0x97])
        #expect(!decoder.hasPendingEscape)
        #expect(decoder.flushPendingEscape().isEmpty)
        #expect(decoder.feed([0xA5]) == [.character("日")])
    }

    @Test func unknownSequencesAreIgnored() {
        let unknown = [
            "\u{1B}[2~",  // Insert
            "\u{1B}[15~",  // F5
            "\u{1B}OP",  // F1
            "\u{1B}[[A",  // Linux console F1
            "\u{1B}[<0;10;5M",  // SGR mouse report
            "\u{1B}[?1;2c",  // device attributes reply
            "\u{1B}[I",  // focus in
            "\u{1B}[201~",  // end of a paste that never started
            "\u{1B}[1 q",  // intermediate byte
        ]
        expectKeys(bytes(unknown.joined() + "k"), [.character("k")])
    }

    @Test func aSequenceCutOffByAnotherKey() {
        // A control byte inside a sequence ends it and counts as itself; an ESC starts anew.
        expectKeys(bytes("\u{1B}[1\r"), [.enter])
        expectKeys(bytes("\u{1B}[1\u{1B}[B"), [.down])
        expectKeys([0x1B, UInt8(ascii: "["), 0xC3, 0xA9], [.character("é")])
    }

    @Test func overlongSequencesAreSkippedWhole() {
        let parameters = String(repeating: "1;", count: 500)
        expectKeys(bytes("\u{1B}[\(parameters)A" + "z"), [.character("z")])
        var decoder = KeyDecoder()
        _ = decoder.feed(bytes("\u{1B}[\(parameters)"))
        #expect(decoder.sequence.count <= KeyDecoder.maximumSequenceBytes)
    }

    @Test func bracketedPasteIsOneKey() {
        expectKeys(bytes("\u{1B}[200~hello\rworld\u{1B}[201~x"), [.paste("hello\nworld"), .character("x")])
    }

    @Test func pasteNormalisesLineEndsAndDropsControls() {
        expectKeys(bytes("\u{1B}[200~a\r\nb\nc\td\u{07}e\u{1B}[31mf\u{1B}[201~"), [.paste("a\nb\nc\tde[31mf")])
        // Invalid UTF-8 inside a paste is dropped too.
        expectKeys(
            [0x1B, 0x5B, 0x32, 0x30, 0x30, 0x7E, 0x61, 0xFF, 0x62, 0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E],
            [
                .paste("ab")
            ])
    }

    @Test func aPartialTerminatorInsideAPasteIsText() {
        expectKeys(bytes("\u{1B}[200~a\u{1B}[20b\u{1B}\u{1B}[201~"), [.paste("a[20b")])
    }

    @Test func anEmptyPasteIsNoKey() {
        expectKeys(bytes("\u{1B}[200~\u{1B}[201~"), [])
    }

    @Test func aPasteIsNotCutByTheEscapeTimeout() {
        var decoder = KeyDecoder()
        _ = decoder.feed(bytes("\u{1B}[200~one"))
        #expect(!decoder.hasPendingEscape)
        #expect(decoder.flushPendingEscape().isEmpty)
        #expect(decoder.feed(bytes(" two\u{1B}[201~")) == [.paste("one two")])
    }

    @Test func aLargePasteIsCappedAndTheRestDropped() {
        let big = [UInt8](repeating: UInt8(ascii: "a"), count: KeyDecoder.maximumPasteBytes + 10_000)
        var decoder = KeyDecoder()
        var keys = decoder.feed(bytes("\u{1B}[200~"))
        for chunk in stride(from: 0, to: big.count, by: 4096) {
            keys += decoder.feed(big[chunk..<min(chunk + 4096, big.count)])
            #expect(decoder.pasteBytes.count <= KeyDecoder.maximumPasteBytes)
        }
        keys += decoder.feed(bytes("\u{1B}[201~z"))
        #expect(keys == [.paste(String(repeating: "a", count: KeyDecoder.maximumPasteBytes)), .character("z")])
    }

    @Test func keysAfterAPasteDecodeNormally() {
        expectKeys(bytes("\u{1B}[200~p\u{1B}[201~\u{1B}[A\r"), [.paste("p"), .up, .enter])
    }
}
