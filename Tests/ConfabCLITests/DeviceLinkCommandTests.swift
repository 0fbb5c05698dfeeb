import ConfabTestSupport
import Foundation
import Testing

/// `confab devices link` and `confab init --link` as two real processes on loopback, each
/// person answering through its standard input (Protocol.md §20.10).
@Suite(.serialized) struct DeviceLinkCommandTests {
    struct Offer {
        let process: InteractiveProcess
        let code: String
        let port: String
    }

    static func offer(from data: URL) async throws -> Offer {
        let process = try InteractiveProcess(data: data, ["devices", "link", "--no-discovery"])
        try await process.waitFor("Waiting for the new machine")
        let output = process.output
        let code = try #require(output.firstMatch(of: /Link code: ([0-9A-Z]{5}-[0-9A-Z]{5})/)?.1)
        let port = try #require(output.firstMatch(of: /--peer \S+:(\d+)/)?.1)
        return Offer(process: process, code: String(code), port: String(port))
    }

    static func words(in output: String) -> String? {
        output.firstMatch(of: /Words: ([a-z ]+)\n/).map { String($0.1) }
    }

    @Test func twoMachinesLinkAndListEachOther() async throws {
        let root = try CLIRunner.temporaryDirectory()
        let alice = CLIRunner(data: root.appendingPathComponent("alice"))
        let aliceKey = try alice.initialize(name: "alice")
        let laptopData = root.appendingPathComponent("laptop")
        let offer = try await Self.offer(from: alice.data)
        let join = try InteractiveProcess(
            data: laptopData,
            ["init", "--link", offer.code.lowercased(), "--peer", "127.0.0.1:\(offer.port)", "--name", "laptop"])
        try await join.waitFor("[y/N]")
        try await offer.process.waitFor("[y/N]")
        let words = try #require(Self.words(in: join.output))
        #expect(Self.words(in: offer.process.output) == words)
        #expect(words.split(separator: " ").count == 5)
        try join.send("y")
        try offer.process.send("yes")
        #expect(try await join.waitForExit() == 0, "\(join.output)")
        #expect(try await offer.process.waitForExit() == 0, "\(offer.process.output)")
        #expect(offer.process.output.contains("Linked laptop"))
        #expect(join.output.contains("Linked laptop"))

        let laptop = CLIRunner(data: laptopData)
        let onAlice = try alice.run(["devices"])
        let onLaptop = try laptop.run(["devices"])
        #expect(onAlice.status == 0 && onLaptop.status == 0)
        let aliceLines = onAlice.stdout.split(separator: "\n")
        let laptopLines = onLaptop.stdout.split(separator: "\n")
        #expect(aliceLines.count == 2 && laptopLines.count == 2, "\(onAlice.stdout)\n\(onLaptop.stdout)")
        #expect(aliceLines.first { $0.contains("(this device)") }?.contains(aliceKey.prefix(8)) == true)
        #expect(laptopLines.first { $0.contains("(this device)") }?.contains("laptop") == true)
        #expect(aliceLines.filter { $0.contains("(this device)") }.count == 1)
        #expect(laptopLines.filter { $0.contains("(this device)") }.count == 1)

        let whoami = try laptop.run(["whoami"])
        #expect(whoami.status == 0)
        #expect(whoami.stdout.contains("person       \(aliceKey)"), "\(whoami.stdout)")
        #expect(whoami.stdout.contains("linked"))
        let aliceWhoami = try alice.run(["whoami"])
        #expect(!aliceWhoami.stdout.contains("linked"))
    }

    @Test func aNoOnOneSideEndsBothWithNothingMade() async throws {
        let root = try CLIRunner.temporaryDirectory()
        let alice = CLIRunner(data: root.appendingPathComponent("alice"))
        _ = try alice.initialize(name: "alice")
        let laptopData = root.appendingPathComponent("laptop")
        let offer = try await Self.offer(from: alice.data)
        let join = try InteractiveProcess(
            data: laptopData, ["init", "--link", offer.code, "--peer", "127.0.0.1:\(offer.port)"])
        try await join.waitFor("[y/N]")
        try await offer.process.waitFor("[y/N]")
        try join.send("n")
        #expect(try await join.waitForExit() == 1)
        #expect(try await offer.process.waitForExit() == 1)
        #expect(join.output.contains("you answered no"), "\(join.output)")
        #expect(offer.process.output.contains("the other machine refused"), "\(offer.process.output)")
        #expect(!FileManager.default.fileExists(atPath: laptopData.path))
        let devices = try alice.run(["devices"])
        #expect(devices.stdout.split(separator: "\n").count == 1, "\(devices.stdout)")
    }

    @Test func aCodeThatIsNotOneIsAUsageError() throws {
        let root = try CLIRunner.temporaryDirectory()
        let laptopData = root.appendingPathComponent("laptop")
        let result = try CLIRunner(data: laptopData).run(["init", "--link", "ABCDE-FGHJU", "--peer", "127.0.0.1:9"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("10-symbol code"))
        #expect(!FileManager.default.fileExists(atPath: laptopData.path))
    }
}
