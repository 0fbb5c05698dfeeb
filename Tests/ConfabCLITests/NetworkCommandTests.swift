import ConfabCrypto
import Foundation
import Testing

/// `network new`, `use` and `show`: the key, where it comes from, and the errors.
@Suite struct NetworkCommandTests {
    let node: CLIRunner
    /// The test's own environment must not leak a key into what is checked.
    let unset = ["CONFAB_NETWORK_KEY": ""]

    init() throws {
        node = CLIRunner(data: try CLIRunner.temporaryDirectory().appendingPathComponent("node"))
        _ = try node.initialize(name: "Node")
    }

    private var keyFile: URL { node.data.appendingPathComponent("network.key") }

    private func show(_ arguments: [String] = [], environment: [String: String]) throws -> [String: Any] {
        let result = try node.run(["network", "show", "--json"] + arguments, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try result.json() as? [String: Any])
    }

    private func newKey() throws -> String {
        let result = try node.run(["network", "new", "--json"])
        return try #require((try result.json() as? [String: Any])?["key"] as? String)
    }

    /// Protocol.md §11.2, computed here from the primitive rather than through Confab's code.
    private func tag(_ hex: String) throws -> String {
        let key = try #require(Hex.decode(hex))
        return Hex.encode(Array(try HMAC.authenticate(Array("confab/network-tag/v1".utf8), key: key).prefix(8)))
    }

    @Test func newPrintsAFreshKeyAndHowToShareIt() throws {
        let result = try node.run(["network", "new"])
        #expect(result.status == 0)
        let key = try #require(result.lines.first)
        #expect(key.count == 64 && Hex.decode(key)?.count == 32)
        #expect(result.stdout.contains("anyone who has it can join"))
        #expect(result.stdout.contains("confab network use KEY"))
        #expect(result.stdout.contains("--network-key KEY"))
        #expect(result.stdout.contains("CONFAB_NETWORK_KEY"))
        let json = try #require(try node.run(["network", "new", "--json"]).json() as? [String: Any])
        let other = try #require(json["key"] as? String)
        #expect(other != key)
        #expect(json["tag"] as? String == (try tag(other)))
    }

    @Test func useWritesAPrivateConfigFileAndShowHidesTheKey() throws {
        #expect(try show(environment: unset)["source"] as? String == "default")
        #expect(try show(environment: unset)["tag"] as? String == "5221827fe1260bbd")
        let key = try newKey()
        let used = try node.run(["network", "use", key])
        #expect(used.status == 0, "\(used.stderr)")
        #expect(used.stdout.contains("will join the private network \(try tag(key))"))
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile.path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(try String(contentsOf: keyFile, encoding: .utf8) == key + "\n")

        let info = try show(environment: unset)
        #expect(info["source"] as? String == "config")
        #expect(info["tag"] as? String == (try tag(key)))
        #expect(info["key"] == nil)
        #expect(info["isDefault"] as? Bool == false)
        let human = try node.run(["network", "show"], environment: unset)
        #expect(!human.stdout.contains(key))
        #expect(human.stdout.contains("hidden (add --reveal to print it)"))
        #expect(try node.run(["network", "show", "--reveal"], environment: unset).stdout.contains(key))
        #expect(try show(["--reveal"], environment: unset)["key"] as? String == key)

        #expect(try node.run(["network", "use", "--default"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: keyFile.path))
        #expect(try show(environment: unset)["source"] as? String == "default")
    }

    @Test func flagBeatsEnvironmentBeatsConfigBeatsDefault() throws {
        let (flag, environment, config) = (try newKey(), try newKey(), try newKey())
        #expect(try node.run(["network", "use", config]).status == 0)
        let env = ["CONFAB_NETWORK_KEY": environment]
        let fromFlag = try show(["--network-key", flag], environment: env)
        #expect(fromFlag["source"] as? String == "flag")
        #expect(fromFlag["tag"] as? String == (try tag(flag)))
        let fromEnvironment = try show(environment: env)
        #expect(fromEnvironment["source"] as? String == "environment")
        #expect(fromEnvironment["tag"] as? String == (try tag(environment)))
        #expect(try show(environment: unset)["tag"] as? String == (try tag(config)))
        // base64 is accepted wherever hex is.
        let base64 = Data(try #require(Hex.decode(environment))).base64EncodedString()
        #expect(try show(environment: ["CONFAB_NETWORK_KEY": base64])["tag"] as? String == (try tag(environment)))
    }

    @Test func badKeysAndFilesAreRefusedWithWhatToDo() throws {
        let neither = try node.run(["network", "use"])
        #expect(neither.status == 2)
        #expect(neither.stderr.contains("give a network key (from \"confab network new\"), or --default"))
        let both = try node.run(["network", "use", try newKey(), "--default"])
        #expect(both.status == 2)
        #expect(both.stderr.contains("not both"))
        let short = try node.run(["network", "use", "abcd"])
        #expect(short.status == 2)
        #expect(short.stderr.contains("not a network key"))
        #expect(!FileManager.default.fileExists(atPath: keyFile.path))

        let badEnvironment = try node.run(["network", "show"], environment: ["CONFAB_NETWORK_KEY": "nope"])
        #expect(badEnvironment.status == 1)
        #expect(badEnvironment.stderr.contains("CONFAB_NETWORK_KEY is not a network key"))
        let badFlag = try node.run(["network", "show", "--network-key", "nope"], environment: unset)
        #expect(badFlag.status == 1)
        #expect(badFlag.stderr.contains("--network-key is not a network key"))

        #expect(try node.run(["network", "use", try newKey()]).status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyFile.path)
        let open = try node.run(["network", "show"], environment: unset)
        #expect(open.status == 1)
        #expect(open.stderr.contains("readable by others"))
        #expect(open.stderr.contains("chmod 600"))

        for damaged in ["not a key\n", String(repeating: "a", count: 63), String(repeating: "0", count: 5000)] {
            try Data(damaged.utf8).write(to: keyFile)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
            let result = try node.run(["network", "show"], environment: unset)
            #expect(result.status == 1)
            #expect(result.stderr.contains("is damaged"))
            #expect(result.stderr.contains("confab network use --default"))
        }
        // A node refuses to start on a damaged file rather than fall back to another network.
        let up = try node.run(["up", "--no-discovery", "--listen", "127.0.0.1:0"], environment: unset)
        #expect(up.status == 1)
        #expect(up.stderr.contains("is damaged"))
    }
}
