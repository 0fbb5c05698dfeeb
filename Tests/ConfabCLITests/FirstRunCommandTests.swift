import ConfabTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `confab up` with no identity and its web app on: it asks the name in the browser (the web
/// suite drives that page in Chromium), and says so with the link; `confab open` finds it.
@Suite struct FirstRunCommandTests {
    /// A TCP port on 127.0.0.1 nothing listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw ConfabBinary.Failure("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func upWithoutAnIdentityAsksTheNameInTheWebAppAndStopsCleanly() async throws {
        let directory = try CLIRunner.temporaryDirectory().appendingPathComponent("fresh")
        let port = try Self.freePort()
        let up = try InteractiveProcess(data: directory, ["up", "--no-discovery", "--web", "127.0.0.1:\(port)"])
        let address = "http://127.0.0.1:\(port)/"
        try await up.waitFor("choose your name in the web app — open \(address)login?token=")
        let open = try CLIRunner(data: directory).run(["open", "--print"])
        #expect(open.status == 0, "\(open.stderr)")
        #expect(open.stdout.contains("Confab's web app: \(address)"))
        let link = try #require(open.stdout.split(separator: "\n").last?.trimmingCharacters(in: .whitespaces))
        #expect(up.output.contains(link))
        up.terminate()
        #expect(try await up.waitForExit() == 1)
        #expect(up.output.contains("stopped before a name was chosen"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("identity.key").path))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("web-welcome").path))
    }
}

/// The terminal chat's first run reading its answer (a name or the code of `confab devices
/// link`), through standard input, with discovery off and no offer anywhere.
@Suite struct FirstRunLinkAnswerTests {
    static let chat = ["chat", "--no-discovery", "--no-web", "--listen", "127.0.0.1:0"]

    @Test func aMistypedCodeIsAskedAgainAndANameThatReadsAsACodeIsAskedAbout() throws {
        let data = try CLIRunner.temporaryDirectory().appendingPathComponent("fresh")
        let runner = CLIRunner(data: data)
        let result = try runner.run(Self.chat, stdin: "K7Q2M-9XH4U\nMaximilian\nn\n")
        #expect(result.stdout.contains("type the code it shows instead of a name"), "\(result.stdout)")
        #expect(
            result.stderr.contains(
                "\"K7Q2M-9XH4U\" looks like a link code but is not one: \"U\" is not in a link code"),
            "\(result.stderr)")
        #expect(result.stdout.contains("\"Maximilian\" could be a name or a link code"), "\(result.stdout)")
        #expect(result.stdout.contains("Created your identity \"Maximilian\""), "\(result.stdout)")
        let whoami = try #require(try runner.run(["whoami", "--json"]).json() as? [String: Any])
        #expect(whoami["name"] as? String == "Maximilian")
        #expect(whoami["person"] == nil, "a person of its own, not a linked device")
    }

    @Test func aCodeWithNoAddressGivenEndsWithWhatDoctorChecksAndWritesNothing() throws {
        let data = try CLIRunner.temporaryDirectory().appendingPathComponent("fresh")
        let result = try CLIRunner(data: data).run(Self.chat, stdin: "k7q2m-9xh4t\n\n")
        #expect(result.status == 1)
        #expect(result.stdout.contains("The other machine's address"), "\(result.stdout)")
        #expect(result.stderr.contains("\"confab doctor\" checks"), "\(result.stderr)")
        #expect(!result.stdout.contains("Created your identity"))
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("identity.key").path))
    }

    @Test func anAddressNobodyAnswersIsSaidAndAskedAgain() throws {
        let data = try CLIRunner.temporaryDirectory().appendingPathComponent("fresh")
        let port = try FirstRunCommandTests.freePort()
        let result = try CLIRunner(data: data).run(
            Self.chat, stdin: "K7Q2M-9XH4T\nnot an address\n127.0.0.1:\(port)\n\n")
        #expect(result.status == 1)
        #expect(result.stderr.contains("\"not an address\" is not HOST:PORT"), "\(result.stderr)")
        #expect(result.stderr.contains("cannot reach the offer at 127.0.0.1:\(port)"), "\(result.stderr)")
        #expect(result.stderr.contains("\"confab doctor\" checks both"))
        // Asked once more after the address that failed, before giving up.
        #expect(result.stdout.components(separatedBy: "The other machine's address").count == 4, "\(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("identity.key").path))
    }
}
