import ConfabCrypto
import Foundation
import Testing

/// The command line as scripts and people use it: real binary, real files.
@Suite struct CommandLineTests {
    let alice: CLIRunner
    let bob: CLIRunner
    let aliceKey: String
    let bobKey: String

    init() throws {
        let root = try CLIRunner.temporaryDirectory()
        alice = CLIRunner(data: root.appendingPathComponent("alice"))
        bob = CLIRunner(data: root.appendingPathComponent("bob"))
        aliceKey = try alice.initialize(name: "Alice")
        bobKey = try bob.initialize(name: "Bob")
    }

    @Test func theBareCommandOnAPipeListsConversationsOrSaysHowToStart() throws {
        #expect(try alice.run(["send", "bob", "hello"]).status == 1)  // bob unknown yet
        #expect(try alice.run(["peers", "add", bobKey, "--name", "Bob"]).status == 0)
        #expect(try alice.run(["send", "bob", "hello there"]).status == 0)
        let listed = try alice.run([])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("Bob"))
        #expect(listed.stdout.contains("You: hello there"))
        #expect(listed.stdout.contains("confab --help"))

        let fresh = CLIRunner(data: try CLIRunner.temporaryDirectory().appendingPathComponent("nobody"))
        let welcome = try fresh.run([])
        #expect(welcome.status == 0)
        #expect(welcome.stdout.contains("Welcome to Confab"))
        #expect(welcome.stdout.contains("confab init --name"))
    }

    @Test func aMistypedCommandIsNamedWithTheClosestOne() throws {
        let typo = try alice.run(["sned", "bob", "hi"])
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("no command named \"sned\" — did you mean \"send\"?"))
        let unknown = try alice.run(["frobnicate"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("no command named \"frobnicate\" — run \"confab --help\" for the list"))
        #expect(!unknown.stderr.contains("did you mean"))
        // Real commands, options and help still go to the parser.
        #expect(try alice.run(["whoami"]).status == 0)
        #expect(try alice.run(["--help"]).status == 0)
    }

    @Test func identityFilesArePrivate() throws {
        let attributes = try FileManager.default.attributesOfItem(
            atPath: alice.data.appendingPathComponent("identity.key").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let database = try FileManager.default.attributesOfItem(
            atPath: alice.data.appendingPathComponent("confab.sqlite").path)
        #expect((database[.posixPermissions] as? Int) == 0o600)
    }

    @Test func keyFileReadableByOthersIsRefused() throws {
        let key = alice.data.appendingPathComponent("identity.key").path
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key)
        let result = try alice.run(["whoami"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("readable by others"))
        #expect(result.stderr.contains("chmod 600"))
    }

    @Test func initTwiceIsRefused() throws {
        let result = try alice.run(["init", "--name", "Again"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("already initialised as Alice"))
    }

    @Test func commandsBeforeInitSayWhatToDo() throws {
        let directory = try CLIRunner.temporaryDirectory().appendingPathComponent("none")
        let fresh = CLIRunner(data: directory)
        let result = try fresh.run(["list"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("confab init"))
        // The node too without its web app (which would ask the name, FirstRunCommandTests),
        // on a machine where the data directory does not exist yet: it names the directory
        // and what to run, creates nothing, and sends nothing.
        let up = try fresh.run(["up", "--no-discovery", "--no-web"])
        #expect(up.status == 1)
        #expect(up.stderr.contains("no identity in \(directory.path) yet"))
        #expect(up.stderr.contains("confab init --name"))
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test func whoamiJSON() throws {
        let info = try #require(try alice.run(["whoami", "--json"]).json() as? [String: Any])
        #expect(info["id"] as? String == aliceKey)
        #expect(info["name"] as? String == "Alice")
        #expect((info["fingerprint"] as? String)?.count == 79)
    }

    @Test func emptyListSaysHowToStart() throws {
        let result = try alice.run(["list"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("No conversations yet — start one with `confab new NAME`"))
        #expect(try alice.run(["list", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }

    @Test func sendToUnknownPeerListsKnownPeers() throws {
        try alice.run(["peers", "add", bobKey, "--name", "Bob"])
        let result = try alice.run(["send", "carol", "hi"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no peer named \"carol\" — known peers: Bob"))
    }

    @Test func ambiguousKeyPrefixListsCandidates() throws {
        // Two peers whose keys share a prefix: a short prefix must not pick one silently.
        var carolKey = ""
        repeat {
            carolKey = Hex.encode(SigningKeyPair.generate().publicKey.bytes)
        } while !carolKey.hasPrefix(bobKey.prefix(4))
        try alice.run(["peers", "add", bobKey, "--name", "Bob"])
        let added = try alice.run(["peers", "add", carolKey, "--name", "Carol"])
        try #require(added.status == 0, "\(added.stderr)")
        let result = try alice.run(["new", String(bobKey.prefix(4))])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is ambiguous"))
        #expect(result.stderr.contains("Bob (") && result.stderr.contains("Carol ("))
        #expect(try alice.run(["new", String(bobKey.prefix(12))]).status == 0)
    }

    @Test func usageErrorsExitTwo() throws {
        #expect(try alice.run(["send"]).status == 2)
        #expect(try alice.run(["frobnicate"]).status == 2)
        let badKey = try alice.run(["peers", "add", "zz", "--name", "X"])
        #expect(badKey.status == 2)
        #expect(badKey.stderr.contains("64 hex characters"))
        // 64 hex characters that are not a point on the curve: a typo, caught early.
        let notAPoint = try alice.run(["peers", "add", String(repeating: "f", count: 64), "--name", "X"])
        #expect(notAPoint.status == 2)
        #expect(notAPoint.stderr.contains("not a valid Confab key"))
    }

    @Test func sendQueuesAsSendingAndListShowsIt() throws {
        try alice.run(["peers", "add", bobKey, "--name", "Bob"])
        let sent = try #require(try alice.run(["send", "bob", "hello", "there", "--json"]).json() as? [String: Any])
        #expect(sent["status"] as? String == "sending")
        #expect(sent["created"] as? Bool == true)
        let second = try #require(
            try alice.run(["send", "Bob", "--json"], stdin: "from stdin\n").json() as? [String: Any])
        #expect(second["created"] as? Bool == false)
        #expect(second["conversation"] as? String == sent["conversation"] as? String)

        let list = try #require(try alice.run(["list", "--json"]).json() as? [[String: Any]])
        #expect(list.count == 1)
        let last = try #require(list[0]["lastMessage"] as? [String: Any])
        #expect(last["text"] as? String == "from stdin")
        #expect(last["status"] as? String == "sending")
        #expect(last["mine"] as? Bool == true)

        let human = try alice.run(["list"])
        #expect(human.stdout.contains("You: from stdin · sending…"))
        #expect(human.stdout.contains("Bob"))
    }

    @Test func sendLinesSendsOneMessagePerLine() throws {
        try alice.run(["peers", "add", bobKey, "--name", "Bob"])
        let result = try alice.run(["send", "bob", "--lines", "--json"], stdin: "one\n\ntwo\nthree\n")
        #expect(result.status == 0)
        #expect(result.lines.count == 3)
        let history = try #require(try alice.run(["history", "bob", "--json"]).json() as? [[String: Any]])
        #expect(history.compactMap { $0["text"] as? String } == ["one", "two", "three"])
        #expect(history.allSatisfy { $0["status"] as? String == "sending" })
    }

    @Test func emptyMessageIsRefused() throws {
        try alice.run(["peers", "add", bobKey, "--name", "Bob"])
        let result = try alice.run(["send", "bob"], stdin: "   \n")
        #expect(result.status == 1)
        #expect(result.stderr.contains("the message is empty"))
    }

    @Test func threadsWithTitlesAndHistory() throws {
        try alice.run(["peers", "add", bobKey, "--name", "Bob"])
        let created = try #require(
            try alice.run(["new", "bob", "--title", "Weekend plans", "--message", "Hike on Saturday?", "--json"]).json()
                as? [String: Any])
        let id = try #require(created["id"] as? String)
        #expect(created["title"] as? String == "Weekend plans")
        try alice.run(["new", "bob", "--title", "Work"])
        let list = try #require(try alice.run(["list", "--json"]).json() as? [[String: Any]])
        #expect(list.count == 2)

        let history = try alice.run(["history", String(id.prefix(8))])
        #expect(history.status == 0)
        #expect(history.stdout.contains("Weekend plans"))
        #expect(history.stdout.contains("Today"))
        #expect(history.stdout.contains("You: Hike on Saturday?  (sending…)"))
    }

    @Test func archivePinAndUnreadFlags() throws {
        try alice.run(["peers", "add", bobKey, "--name", "Bob"])
        let first = try #require(try alice.run(["new", "bob", "--title", "First", "--json"]).json() as? [String: Any])
        let second = try #require(
            try alice.run(["new", "bob", "--title", "Second", "--json"]).json() as? [String: Any])
        let firstID = try #require(first["id"] as? String)
        let secondID = try #require(second["id"] as? String)
        try alice.run(["send", String(firstID.prefix(8)), "newest activity"])

        func order() throws -> [String] {
            try #require(try alice.run(["list", "--json"]).json() as? [[String: Any]]).compactMap {
                $0["id"] as? String
            }
        }
        #expect(try order() == [firstID, secondID])
        let pinned = try #require(
            try alice.run(["pin", String(secondID.prefix(6)), "--json"]).json() as? [String: Any])
        #expect(pinned["pinned"] as? Bool == true)
        #expect(try order() == [secondID, firstID])
        #expect(try alice.run(["list"]).stdout.contains("📌"))

        try alice.run(["archive", firstID])
        #expect(try order() == [secondID])
        let archived = try #require(try alice.run(["list", "--archived", "--json"]).json() as? [[String: Any]])
        #expect(archived.compactMap { $0["id"] as? String } == [firstID])
        try alice.run(["unarchive", firstID])
        #expect(try order().count == 2)

        let unread = try #require(try alice.run(["mark-unread", secondID, "--json"]).json() as? [String: Any])
        #expect(unread["markedUnread"] as? Bool == true)
        #expect(try alice.run(["list"]).stdout.contains("(1)"))
        let read = try #require(try alice.run(["mark-read", secondID, "--json"]).json() as? [String: Any])
        #expect(read["markedUnread"] as? Bool == false)
        #expect(try alice.run(["pin", "nosuch"]).status == 1)

        let muted = try #require(try alice.run(["mute", secondID, "--json"]).json() as? [String: Any])
        #expect(muted["muted"] as? Bool == true)
        #expect(try alice.run(["list"]).stdout.contains("(muted)"))
        try alice.run(["unmute", secondID])
        #expect(!(try alice.run(["list"]).stdout.contains("(muted)")))
    }

    @Test func searchFindsMessagesAndTitles() throws {
        try alice.run(["peers", "add", bobKey, "--name", "Bob"])
        try alice.run(["new", "bob", "--title", "Café talk", "--message", "Let's meet at the bakery"])
        let hits = try #require(try alice.run(["search", "bake", "--json"]).json() as? [[String: Any]])
        #expect(hits.count == 1)
        #expect((hits.first?["message"] as? [String: Any])?["text"] as? String == "Let's meet at the bakery")
        let titles = try #require(try alice.run(["search", "cafe", "--json"]).json() as? [[String: Any]])
        #expect(
            titles.contains {
                $0["message"] == nil && ($0["conversation"] as? [String: Any])?["title"] as? String == "Café talk"
            })
        let none = try alice.run(["search", "zebra"])
        #expect(none.stdout.contains("Nothing matches"))
    }

    @Test func deleteNeedsConfirmationWithoutTerminal() throws {
        try alice.run(["peers", "add", bobKey, "--name", "Bob"])
        try alice.run(["send", "bob", "secret plans"])
        let refused = try alice.run(["delete", "bob"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("pass --yes"))
        #expect(try alice.run(["delete", "bob", "--yes"]).status == 0)
        #expect(
            try alice.run(["search", "secret", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]"
        )
        #expect(try alice.run(["list"]).stdout.contains("No conversations yet"))
    }
}
