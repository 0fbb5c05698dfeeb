/// `@name` in a message (Protocol.md §4.5, "Mentions"). The writer finds the names it knows
/// in its text and carries each mentioned key with the byte range that names it; every
/// reader draws each range as `@` and its own name for the key. A display name is a claim
/// and two people may share one, so a name the writer cannot tell apart mentions no one.
public enum Mentions {
    /// A person the writer can mention: a key and the name the writer knows it by.
    public struct Candidate: Sendable {
        public let person: NodeID
        public let name: String

        public init(person: NodeID, name: String) {
            self.person = person
            self.name = name
        }
    }

    /// Shortest key prefix, in hex digits, that names a person (`@a1b2c3d4`).
    public static let minimumKeyPrefix = 8

    /// The mentions in `text`: every `@` at the start of a word followed by the longest
    /// name (compared without case) or key prefix of exactly one candidate, itself followed
    /// by the end of a word. A name two candidates share mentions neither.
    public static func find(in text: String, candidates: [Candidate]) -> [Mention] {
        // Most lines name nobody: no "@", nothing to fold or compare.
        guard text.utf8.contains(UInt8(ascii: "@")) else { return [] }
        let names = candidates.map { (person: $0.person, name: folded(TextSanitizer.line($0.name))) }
            .filter { !$0.name.isEmpty }
        var mentions: [Mention] = []
        var previous: Character?
        var index = text.startIndex
        while index < text.endIndex, mentions.count < Limits.maxMentions {
            let character = text[index]
            defer { previous = character }
            guard character == "@", previous.map({ !isWordCharacter($0) }) ?? true else {
                index = text.index(after: index)
                continue
            }
            let rest = text[text.index(after: index)...]
            if let (person, length) = match(rest, names: names) {
                let end = text.index(rest.startIndex, offsetBy: length)
                let start = text.utf8.distance(from: text.startIndex, to: index)
                mentions.append(
                    Mention(person: person, start: start, length: text.utf8.distance(from: index, to: end)))
                index = end
            } else {
                index = text.index(after: index)
            }
        }
        return mentions
    }

    /// The candidate `rest` starts with, and how many characters name it.
    private static func match(
        _ rest: Substring, names: [(person: NodeID, name: [String])]
    ) -> (NodeID, Int)? {
        let lowered = folded(rest.prefix(Limits.maxNameBytes + 1))
        var best: (person: NodeID, length: Int)?
        var ambiguous = false
        for candidate in names where candidate.name.count <= lowered.count {
            guard Array(lowered.prefix(candidate.name.count)) == candidate.name,
                endsWord(lowered, at: candidate.name.count)
            else { continue }
            if let current = best, current.length == candidate.name.count {
                if current.person != candidate.person { ambiguous = true }
            } else if best.map({ candidate.name.count > $0.length }) ?? true {
                best = (candidate.person, candidate.name.count)
                ambiguous = false
            }
        }
        if let best, !ambiguous { return (best.person, best.length) }
        // A key prefix: hex digits up to the end of the word, matching one candidate.
        let digits = lowered.prefix { $0.count == 1 && $0.first?.isHexDigit == true }
        guard digits.count >= minimumKeyPrefix, endsWord(lowered, at: digits.count) else { return nil }
        let prefix = digits.joined()
        let matching = Set(names.map(\.person).filter { $0.hex.hasPrefix(prefix) })
        guard matching.count == 1, let person = matching.first else { return nil }
        return (person, digits.count)
    }

    /// Each character without case, one element per character of the original, so a
    /// match's length counts characters of the text itself.
    private static func folded(_ text: some StringProtocol) -> [String] {
        text.map { $0.lowercased() }
    }

    private static func endsWord(_ characters: [String], at offset: Int) -> Bool {
        offset >= characters.count || !characters[offset].contains(where: isWordCharacter)
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }

    /// The mentions of a received text that name a range of it that starts with `@`, ends
    /// on a character boundary and overlaps no earlier one, in text order; the rest are
    /// dropped, as are keys `isMember` refuses (someone not in the conversation).
    public static func valid(_ mentions: [Mention], in text: String, isMember: (NodeID) -> Bool) -> [Mention] {
        let utf8 = Array(text.utf8)
        var kept: [Mention] = []
        for mention in mentions.prefix(Limits.maxMentions).sorted(by: { $0.start < $1.start }) {
            guard mention.start >= 0, mention.length >= 2, mention.end <= utf8.count, utf8[mention.start] == 0x40,
                mention.end == utf8.count || utf8[mention.end] & 0xC0 != 0x80,
                kept.last.map({ $0.end <= mention.start }) ?? true, isMember(mention.person)
            else { continue }
            kept.append(mention)
        }
        return kept
    }

    /// `text` with each mention's range drawn as `@` and the reader's name for the key
    /// (`valid` mentions only).
    public static func render(_ text: String, mentions: [Mention], name: (NodeID) -> String) -> String {
        guard !mentions.isEmpty else { return text }
        let utf8 = Array(text.utf8)
        var out: [UInt8] = []
        var position = 0
        for mention in mentions {
            out += utf8[position..<mention.start]
            out += Array(("@" + TextSanitizer.line(name(mention.person))).utf8)
            position = mention.end
        }
        out += utf8[position...]
        return String(decoding: out, as: UTF8.self)
    }
}
