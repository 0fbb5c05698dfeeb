import ConfabTestSupport
import Foundation
import Testing

/// `confab devices` with a word that is none of its commands: `list` is the default, and
/// took the word as its own stray argument, answering with list's usage.
@Suite(.serialized) struct DevicesCommandTests {
    let alice: CLIRunner

    init() throws {
        alice = CLIRunner(data: try CLIRunner.temporaryDirectory().appendingPathComponent("alice"))
        _ = try alice.initialize(name: "alice")
    }

    @Test func aMistypedDevicesCommandIsNamedAsOne() throws {
        let typo = try alice.run(["devices", "lnk"])
        #expect(typo.status == 2)
        #expect(
            typo.stderr.contains(
                "\"lnk\" is not a devices command — did you mean \"link\"? (devices commands: list, link, rename, remove)"
            ), "\(typo.stderr)")
        #expect(!typo.stderr.contains("Unexpected argument"))
        let other = try alice.run(["devices", "frobnicate"])
        #expect(
            other.status == 2 && other.stderr.contains("\"frobnicate\" is not a devices command"), "\(other.stderr)")
        // `confab devices` alone still lists, and help still goes to the parser.
        let list = try alice.run(["devices"])
        #expect(list.status == 0 && list.stdout.contains("person key"), "\(list.stdout)")
        #expect(try alice.run(["devices", "--help"]).status == 0)
        #expect(try alice.run(["devices", "--json"]).status == 0)
    }
}
