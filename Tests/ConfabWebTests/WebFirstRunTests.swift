import ConfabClient
import ConfabModel
import ConfabNode
import ConfabTestSupport
import Foundation
import Logging
import Testing

@testable import ConfabWeb

/// The first run in the browser, on 127.0.0.1: the same guards as the app, a name checked as
/// the terminal checks it, what the machine calls its person shown as text, and the name
/// handed on once. No signal handlers: other suites of this process send themselves SIGTERM.
@Suite struct WebFirstRunTests {
    /// The first run asking on 127.0.0.1 (a port the system gives), in a fresh directory.
    struct Asking {
        let directory: DataDirectory
        let task: Task<WebFirstRun.Welcome, any Error>
        let link: String
        let port: Int

        init(
            suggested: String, linking: WebFirstRun.Linking = .init(deviceName: "laptop", discovery: nil)
        )
            async throws
        {
            directory = DataDirectory(url: try ConfabBinary.temporaryDirectory("web-first-run"))
            var logger = Logger(label: "first-run.test")
            logger.logLevel = .critical
            let (links, linksIn) = AsyncStream.makeStream(of: String.self)
            task = Task { [directory, logger] in
                try await WebFirstRun.welcome(
                    configuration: WebConfiguration(host: "127.0.0.1", port: 0), directory: directory,
                    suggested: suggested, linking: linking, logger: logger, stopSignals: []
                ) { linksIn.yield($0) }
            }
            var iterator = links.makeAsyncIterator()
            link = try #require(await iterator.next())
            port = try #require(Int(link.split(separator: ":")[2].prefix { $0.isNumber }))
        }
    }

    @Test func theFormTakesAValidNameBehindTheAppsGuards() async throws {
        let asking = try await Asking(suggested: #"<b>"me"</b>"#)
        defer { try? FileManager.default.removeItem(at: asking.directory.url) }
        let (link, port, directory) = (asking.link, asking.port, asking.directory)
        let login = String(link[link.range(of: "/login")!.lowerBound...])
        let http = LoopbackHTTP(port: port)
        let marker = directory.url.appendingPathComponent("web-welcome")
        #expect(FileManager.default.fileExists(atPath: marker.path))

        #expect(try await http.request("GET", "/").status == 401)
        let signedIn = try await http.request("GET", login)
        #expect(signedIn.status == 303)
        let cookie = try #require(signedIn.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        let own = ["Cookie": cookie, "Origin": "http://127.0.0.1:\(port)", "Sec-Fetch-Site": "same-origin"]

        let page = try await http.request("GET", "/", headers: ["Cookie": cookie])
        #expect(page.status == 200)
        #expect(page.body.contains("&lt;b&gt;&quot;me&quot;&lt;/b&gt;"))
        #expect(!page.body.contains("<b>\"me\""))
        #expect(page.headers["content-security-policy"]?.contains("script-src 'self'") == true)
        let api = try await http.request("POST", "/api/v1/status", headers: own, body: "{}")
        #expect(api.status == 409)
        #expect(api.body.contains("no Confab identity yet"))

        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        let foreign = try await http.request(
            "POST", "/welcome", headers: form.merging(["Cookie": cookie, "Origin": "http://evil.example"]) { $1 },
            body: "name=Mallory")
        #expect(foreign.status == 403)
        let noCookie = try await http.request(
            "POST", "/welcome", headers: form.merging(["Origin": "http://127.0.0.1:\(port)"]) { $1 }, body: "name=x")
        #expect(noCookie.status == 401)
        let keyLike = try await http.request(
            "POST", "/welcome", headers: form.merging(own) { $1 }, body: "name=deadbeef01")
        #expect(keyLike.status == 422)
        #expect(keyLike.body.contains("taken for a key"))
        let huge = try await http.request(
            "POST", "/welcome", headers: form.merging(own) { $1 }, body: "name=" + String(repeating: "a", count: 5000))
        #expect(huge.status == 413)
        // Nothing was taken yet: the form is still there.
        #expect(try await http.request("GET", "/", headers: ["Cookie": cookie]).status == 200)

        let chosen = try await http.request(
            "POST", "/welcome", headers: form.merging(own) { $1 }, body: "name=Al+ice+%3Cx%3E")
        #expect(chosen.status == 200)
        #expect(chosen.body.contains("Hello, Al ice &lt;x&gt;"))
        #expect(try await asking.task.value.name == "Al ice <x>")
        #expect(!FileManager.default.fileExists(atPath: marker.path))
    }

    @Test func anEmptyNameKeepsTheSuggestedOne() async throws {
        let asking = try await Asking(suggested: "maria")
        defer { try? FileManager.default.removeItem(at: asking.directory.url) }
        let (link, port) = (asking.link, asking.port)
        let http = LoopbackHTTP(port: port)
        let signedIn = try await http.request("GET", String(link[link.range(of: "/login")!.lowerBound...]))
        let cookie = try #require(signedIn.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        let answer = try await http.request(
            "POST", "/welcome",
            headers: [
                "Cookie": cookie, "Origin": "null", "Sec-Fetch-Site": "same-origin",
                "Content-Type": "application/x-www-form-urlencoded",
            ], body: "name=+++")
        #expect(answer.status == 200)
        #expect(try await asking.task.value.name == "maria")
    }
}
