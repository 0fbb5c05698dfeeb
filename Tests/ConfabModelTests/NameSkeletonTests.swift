import ConfabModel
import Testing

@Suite struct NameSkeletonTests {
    @Test(arguments: [
        "bob", "Bob", "BOB", "  bob ", "bob\u{200B}", "b\u{200D}ob", "\u{202E}bob\u{202C}", "bo\u{2066}b",
        "bob\u{FE0F}",
        "ＢＯＢ", "Воb", "ΒΟΒ", "bоb", "b\u{00AD}ob",
    ])
    func lookAlikesOfBobShareItsSkeleton(name: String) {
        #expect(NameSkeleton.of(name) == "bob")
    }

    @Test func whitespaceRunsCountAsOneSpace() {
        #expect(NameSkeleton.of("Bob  Smith") == NameSkeleton.of("bob\u{00A0}smith"))
        #expect(NameSkeleton.of("Bob\tSmith\n") == "bob smith")
    }

    @Test func compositionAndCaseFoldingDoNotMatter() {
        #expect(NameSkeleton.of("\u{00C9}mile") == NameSkeleton.of("E\u{0301}mile"))
        #expect(NameSkeleton.of("STRASSE") == NameSkeleton.of("Straße"))
        #expect(NameSkeleton.of("ﬁona") == "fiona")
    }

    @Test func cyrillicAndGreekLookAlikesMapToLatin() {
        #expect(NameSkeleton.of("аеорсухіјѕԁ") == "aeopcyxijsd")
        #expect(NameSkeleton.of("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ") == "abezhikmnoptyx")
        #expect(NameSkeleton.of("ɡ") == "g")
    }

    @Test func differentNamesStayDifferent() {
        #expect(NameSkeleton.of("Bob") != NameSkeleton.of("Rob"))
        #expect(NameSkeleton.of("Émile") != NameSkeleton.of("Emile"))
        #expect(NameSkeleton.of("Zoë") == "zoë")
    }
}

@Suite struct DisplayNameTests {
    static let key = String(repeating: "3f9a", count: 16)

    @Test(arguments: [
        key, String(key.prefix(8)), "DEADBEEF", "dead beef", "cafe babe 1234", "12345678", "ｄｅａｄｂｅｅｆ",
        "bob (1a2b3c4d)", "Bob (\(key))", "(deadbeef)", "bob (1A2B 3C4D)",
        stride(from: 0, to: 64, by: 4).map { String(Array(key)[$0..<$0 + 4]) }.joined(separator: " "),
    ])
    func namesThatLookLikeKeysAreRefused(name: String) {
        #expect(DisplayName.looksLikeKey(name))
        #expect(DisplayName.keyLikeRefusal(name)?.contains("could be taken for a key") == true)
    }

    @Test(arguments: ["Bob", "cafe", "dad", "1234567", "Bob (2024)", "Ada Lovelace", "bob (friend)", "faded beer"])
    func ordinaryNamesAreFine(name: String) {
        #expect(!DisplayName.looksLikeKey(name))
        #expect(DisplayName.keyLikeRefusal(name) == nil)
    }

    @Test func cleanedNamesAreOneVisibleLine() {
        #expect(DisplayName.cleaned("  Ca\u{200B}rol\u{202E} \u{1B}[31m Smith\n") == "Carol Smith")
        #expect(DisplayName.cleaned("\u{1B}]52;c;ZWNobw==\u{07}Bob") == "Bob")
        #expect(DisplayName.cleaned("Zoë") == "Zoë")
    }

    @Test func aKeyLikeClaimKeepsWhatIsNotHex() {
        #expect(DisplayName.base(ofKeyLike: "Bob (1a2b3c4d)") == "Bob")
        #expect(DisplayName.base(ofKeyLike: Self.key) == "peer")
        #expect(DisplayName.base(ofKeyLike: "deadbeef (1a2b3c4d)") == "peer")
        #expect(DisplayName.base(ofKeyLike: "(1a2b3c4d)") == "peer")
    }
}
