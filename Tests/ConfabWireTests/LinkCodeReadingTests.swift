import Testing

@testable import ConfabWire

/// How the chat's first run reads an answer that may be a display name or a link code: a
/// name never starts a link unasked, and a code never becomes a name unasked.
@Suite struct LinkCodeReadingTests {
    @Test(arguments: ["K7Q2M-9XH4T", "k7q2m-9xh4t", " K7Q2M - 9XH4T "])
    func aCodeWrittenAsPrintedIsACode(_ text: String) throws {
        #expect(LinkCodeReading(text) == .code(try #require(LinkCode(text: "K7Q2M9XH4T"))))
    }

    /// Ten letters without U read as a code too: a name like that is asked about.
    @Test(arguments: ["Maximilian", "Jean Pierre", "Annie-Marie", "ABCDE-FGHJK", "k7q2m9xh4t", "K7Q2M--9XH4T"])
    func whatCouldBeANameOrACodeIsAskedAbout(_ text: String) {
        guard case .ambiguous(let code, _) = LinkCodeReading(text) else {
            Issue.record("\(text) read as \(LinkCodeReading(text))")
            return
        }
        #expect(code == LinkCode(text: text) && code != nil)
    }

    @Test func lettersAndDigitsNotACodeAreAskedAboutAndSayWhy() {
        #expect(
            LinkCodeReading("Maria 2024")
                == .ambiguous(code: nil, problem: "a link code has 10 symbols, like ABCDE-FGHJK; this has 9"))
        #expect(
            LinkCodeReading("k7q2m9xh4tu")
                == .ambiguous(
                    code: nil, problem: "\"U\" is not in a link code (its symbols are the digits and the letters but U)"
                ))
    }

    @Test func theShapeOfAPrintedCodeThatIsNoneIsAMistypedCode() {
        #expect(
            LinkCodeReading("K7Q2M-9XH4U")
                == .mistyped("\"U\" is not in a link code (its symbols are the digits and the letters but U)"))
        #expect(LinkCodeReading("K7Q2-9XH4T") == .mistyped("a link code has 10 symbols, like ABCDE-FGHJK; this has 9"))
        #expect(LinkCodeReading("K7Q2M-9XH4TT").isMistyped)
        #expect(LinkCodeReading("ABCDE-FGHUK").isMistyped, "capitals, five and five: how a code is printed")
    }

    @Test(arguments: ["Alice", "Bob Smith", "Louis-Marie", "Jean-Paul", "张伟", "R2-D2", "Dana (work)", "Zoë 2"])
    func namesAreNames(_ text: String) {
        #expect(LinkCodeReading(text) == .name)
    }

    /// Every code, in each form a person may type it, is a code or asked about: never a name
    /// and never refused as mistyped.
    @Test func everyCodeInEveryTypedFormIsNeverAName() {
        for _ in 0..<2000 {
            let code = LinkCode.generate()
            for text in [code.description, code.description.lowercased(), code.symbols, code.symbols.lowercased()] {
                switch LinkCodeReading(text) {
                case .code(let read): #expect(read == code)
                case .ambiguous(let read, _): #expect(read == code)
                case .mistyped, .name: Issue.record("\(text) read as \(LinkCodeReading(text))")
                }
            }
            // As printed, with a digit in it, it is taken without asking.
            if code.symbols.contains(where: \.isNumber) {
                #expect(LinkCodeReading(code.description) == .code(code))
            }
        }
    }
}

extension LinkCodeReading {
    fileprivate var isMistyped: Bool {
        if case .mistyped = self { return true }
        return false
    }
}
