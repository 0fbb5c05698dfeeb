/// How the chat's first run reads its one answer, which may be a display name or the code
/// of `confab devices link`. Many names read as codes too ("Maximilian", "Jean Pierre": ten
/// letters, none of them U), so only a code written the way it is printed is taken without
/// asking; anything else that could be a code is asked about, so a name never starts a link
/// and a code never becomes a name unasked.
public enum LinkCodeReading: Sendable, Equatable {
    /// Written as `devices link` prints it (five symbols, a hyphen, five symbols) with a
    /// digit in it: no name is written that way.
    case code(LinkCode)
    /// Could be a name or a code: the person says which. `code` is nil when it is not a
    /// valid code; `problem` then says why.
    case ambiguous(code: LinkCode?, problem: String)
    /// Shaped like a printed code but not one: a mistyped code, never a name.
    case mistyped(String)
    /// Nothing like a code.
    case name

    public init(_ text: String) {
        let answer = text.trimmingWhitespace
        let code = LinkCode(text: answer)
        let problem = LinkCode.problem(answer) ?? ""
        let groups = answer.split(separator: "-", omittingEmptySubsequences: false).map(\.trimmingWhitespace)
        let printedShape =
            groups.count == 2
            && groups.allSatisfy { (4...6).contains($0.count) && $0.allSatisfy(Self.isASCIIAlphanumeric) }
        let hasDigit = answer.contains { $0.isASCII && $0.isNumber }
        if printedShape {
            // Upper case letters only, five and five, is how a code without digits is printed.
            let printedCapitals = groups.allSatisfy { $0.count == 5 && $0 == $0.uppercased() }
            if let code, hasDigit, groups.allSatisfy({ $0.count == 5 }) {
                self = .code(code)
                return
            }
            if code == nil, hasDigit || printedCapitals {
                self = .mistyped(problem)
                return
            }
        }
        if let code {
            self = .ambiguous(code: code, problem: "")
            return
        }
        // Eight to twelve letters and digits with both in them: a code with a symbol too many,
        // too few or wrong, or a name such as "Maria 2024".
        let compact = answer.filter { $0 != " " && $0 != "-" }
        if (8...12).contains(compact.count), compact.allSatisfy(Self.isASCIIAlphanumeric), hasDigit,
            compact.contains(where: \.isLetter)
        {
            self = .ambiguous(code: nil, problem: problem)
            return
        }
        self = .name
    }

    static func isASCIIAlphanumeric(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber)
    }
}

extension LinkCode {
    /// Why `text` is not a code, for a person who meant one; nil when it is one.
    public static func problem(_ text: String) -> String? {
        guard LinkCode(text: text) == nil else { return nil }
        let symbols = text.uppercased().filter { $0 != "-" && $0 != " " }
        if let wrong = symbols.first(where: { !alphabet.contains($0) && !"ILO".contains($0) }) {
            let shown = wrong.isASCII && !wrong.isWhitespace ? "\"\(wrong)\"" : "a character"
            return "\(shown) is not in a link code (its symbols are the digits and the letters but U)"
        }
        return "a link code has \(symbolCount) symbols, like ABCDE-FGHJK; this has \(symbols.count)"
    }
}

extension StringProtocol {
    fileprivate var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
