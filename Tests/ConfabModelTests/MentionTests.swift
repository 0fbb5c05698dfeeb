import ConfabModel
import Testing

/// `@name` (Protocol.md §4.5, "Mentions"): the writer finds names it can tell apart, the
/// reader keeps only ranges that name an `@` of a member and draws its own names.
@Suite struct MentionTests {
    let bob = nodeID(0xB2)
    let bobby = nodeID(0xB3)
    let carol = nodeID(0xC3)

    var candidates: [Mentions.Candidate] {
        [.init(person: bob, name: "Bob"), .init(person: bobby, name: "Bob Smith"), .init(person: carol, name: "carol")]
    }

    func spans(_ text: String) -> [String] {
        let utf8 = Array(text.utf8)
        return Mentions.find(in: text, candidates: candidates).map {
            String(decoding: utf8[$0.start..<$0.end], as: UTF8.self)
        }
    }

    @Test func namesAreFoundWithoutCaseTheLongestFirstAtTheStartOfAWord() {
        #expect(spans("@bob hi") == ["@bob"])
        #expect(spans("hi @Bob Smith, and @CAROL!") == ["@Bob Smith", "@CAROL"])
        #expect(spans("@Bobby") == [], "a name is a whole word")
        #expect(spans("mail bob@carol.org") == [], "not inside a word")
        #expect(spans("@ bob") == [])
        #expect(Mentions.find(in: "(@carol)", candidates: candidates).map(\.person) == [carol])
        #expect(Mentions.find(in: "é @carol", candidates: candidates).first?.start == 3, "offsets are UTF-8 bytes")
    }

    @Test func aNameTwoPeopleShareMentionsNeither() {
        let twins: [Mentions.Candidate] = [.init(person: bob, name: "Sam"), .init(person: carol, name: "sam")]
        #expect(Mentions.find(in: "@sam", candidates: twins).isEmpty)
        // A key prefix tells them apart.
        let prefix = String(carol.hex.prefix(8))
        #expect(Mentions.find(in: "@\(prefix) hi", candidates: twins).map(\.person) == [carol])
        #expect(Mentions.find(in: "@\(prefix.prefix(7))", candidates: twins).isEmpty, "8 hex digits at least")
    }

    @Test func onlyRangesNamingAnAtOfAMemberAreKept() {
        let text = "@x hello @y é"
        let members: Set = [bob, carol]
        let kept = Mentions.valid(
            [
                Mention(person: carol, start: 9, length: 2),
                Mention(person: bob, start: 0, length: 2),
                Mention(person: bobby, start: 0, length: 2),  // not a member
                Mention(person: bob, start: 3, length: 2),  // no "@" there
                Mention(person: bob, start: 9, length: 1),  // just the "@"
                Mention(person: bob, start: 12, length: 1),  // inside "é"
                Mention(person: bob, start: 12, length: 10),  // past the end
                Mention(person: bob, start: 1, length: 1),
            ], in: text, isMember: members.contains)
        #expect(kept == [Mention(person: bob, start: 0, length: 2), Mention(person: carol, start: 9, length: 2)])
        #expect(
            Mentions.valid(
                [Mention(person: bob, start: 9, length: 2), Mention(person: carol, start: 9, length: 2)], in: text,
                isMember: members.contains
            ).count == 1, "no overlap")
    }

    @Test func theReaderDrawsItsOwnNamesSanitised() {
        let text = "@b and @c"
        let mentions = [Mention(person: bob, start: 0, length: 2), Mention(person: carol, start: 7, length: 2)]
        let names = [bob: "Robert", carol: "Car\u{1B}[2Jol\nX"]
        #expect(Mentions.render(text, mentions: mentions) { names[$0]! } == "@Robert and @Carol X")
    }
}
