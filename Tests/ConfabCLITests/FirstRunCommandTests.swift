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
