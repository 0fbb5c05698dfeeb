import ConfabModel
import Testing

@testable import ConfabWire

/// How a link code is read (Protocol.md §20.10): as people type it, and nothing else.
@Suite struct LinkCodeTests {
    @Test(arguments: [
        "K7Q2M-9XH4T", "k7q2m9xh4t", "K7Q2M 9XH4T", " k7q2m-9xh4t ", "K7Q2M--9XH4T",
    ])
    func typedFormsReadAsTheCode(_ text: String) throws {
        let code = try #require(LinkCode(text: text))
        #expect(code.symbols == "K7Q2M9XH4T")
        #expect(code.description == "K7Q2M-9XH4T")
    }

    @Test func lettersThatLookLikeDigitsReadAsDigits() throws {
        #expect(LinkCode(text: "ilo00-IL0AB")?.symbols == "11000110AB")
    }

    @Test(arguments: ["", "K7Q2M-9XH4", "K7Q2M-9XH4TT", "K7Q2M-9XH4U", "K7Q2M_9XH4T", "K7Q2M-9XH4É", "K7Q2M.9XH4T"])
    func anythingElseIsRefused(_ text: String) {
        #expect(LinkCode(text: text) == nil)
    }

    @Test func generatedCodesAreCanonicalAndVary() throws {
        let codes = (0..<64).map { _ in LinkCode.generate() }
        for code in codes {
            #expect(code.symbols.count == 10)
            #expect(LinkCode(text: code.description) == code)
            #expect(code.symbols.allSatisfy { LinkCode.alphabet.contains($0) })
        }
        #expect(Set(codes.map(\.symbols)).count == 64)
        // Every symbol of the alphabet turns up: the draw is not stuck on part of it.
        #expect(Set(codes.flatMap(\.symbols)).count == 32)
    }
}
