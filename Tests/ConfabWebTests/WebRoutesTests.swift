import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNode
import ConfabTestSupport
import Foundation
import Logging
import Testing

@testable import ConfabWeb

/// The app's routes over real HTTP on loopback, answered by a messenger on a real store
/// (no node: reads and local writes need none). What a browser does to them is Tests/Web.
@Suite struct WebRoutesTests {
    struct Fixture {
        let messenger: LocalMessenger
        let token: LoginToken
        let directory: DataDirectory

        init() throws {
            directory = DataDirectory(url: try ConfabBinary.temporaryDirectory("web-routes"))
            messenger = LocalMessenger(local: try Profile.initialize(directory, name: "Alice"))
            token = try LoginToken.loadOrCreate(in: directory)
        }

        /// Hummingbird logs a cancelled server's connections as errors: not this test's.
        static var quiet: Logger {
            var logger = Logger(label: "web-test")
            logger.logLevel = .critical
            return logger
        }

        /// The app served on a free loopback port while `body` runs.
        func serve(password: String? = nil, _ body: (LoopbackHTTP) async throws -> Void) async throws {
            let (addresses, served) = AsyncStream.makeStream(of: String.self)
            let app = WebApp.application(
                configuration: WebConfiguration(host: "127.0.0.1", port: 0, password: password), messenger: messenger,
                token: token, logger: Self.quiet
            ) { served.yield($0) }
            let running = Task { try await app.run() }
            defer { running.cancel() }
            var iterator = addresses.makeAsyncIterator()
            let address = try #require(await iterator.next())
            let port = try #require(Int(address.split(separator: ":").last?.dropLast() ?? ""))
            try await body(LoopbackHTTP(port: port))
        }

        var cookie: [String: String] { ["Cookie": "confab_session=\(token.cookieValue)"] }

        func signedIn(origin: String? = nil) -> [String: String] {
            var headers = cookie
            if let origin { headers["Origin"] = origin }
            headers["Content-Type"] = "application/json"
            return headers
        }
    }

    @Test func withoutTheCookieNothingIsAnswered() async throws {
        let fixture = try Fixture()
        try await fixture.serve { http in
            let page = try await http.request("GET", "/")
            #expect(page.status == 401)
            #expect(page.body.contains("confab open"))
            #expect(!page.body.contains("<script"))
            let operation = try await http.request("POST", "/api/v1/conversations")
            #expect(operation.status == 401)
            #expect(operation.body.contains(#""ok":false"#))
            let forged = try await http.request(
                "POST", "/api/v1/conversations",
                headers: ["Cookie": "confab_session=" + String(repeating: "0", count: 64)])
            #expect(forged.status == 401)
        }
    }

    @Test func theLoginLinkSetsAStrictHttpOnlyCookie() async throws {
        let fixture = try Fixture()
        try await fixture.serve { http in
            let wrong = try await http.request("GET", "/login?token=" + String(repeating: "a", count: 64))
            #expect(wrong.status == 401)
            #expect(wrong.headers["set-cookie"] == nil)
            let right = try await http.request("GET", "/login?token=" + fixture.token.token)
            #expect(right.status == 303)
            #expect(right.headers["location"] == "/")
            let cookie = try #require(right.headers["set-cookie"])
            #expect(cookie.hasPrefix("confab_session=\(fixture.token.cookieValue);"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        }
    }

    @Test func operationsAreTheControlProtocols() async throws {
        let fixture = try Fixture()
        try await fixture.serve { http in
            let list = try await http.request("POST", "/api/v1/conversations", headers: fixture.signedIn(), body: "{}")
            #expect(list.status == 200)
            #expect(list.body == #"{"ok":true,"result":[],"v":1}"#)
            #expect(try await http.request("POST", "/api/v1/nonsense", headers: fixture.signedIn()).status == 404)
            let missing = try await http.request("POST", "/api/v1/history", headers: fixture.signedIn(), body: "{}")
            #expect(missing.status == 400)
            #expect(missing.body.contains("history needs param conversation"))
            let refused = try await http.request(
                "POST", "/api/v1/send", headers: fixture.signedIn(),
                body: #"{"text":"hi","conversation":"00000000000000000000000000000001"}"#)
            #expect(refused.status == 422)
        }
    }

    /// A page with the cookie could otherwise read any file here into a message, or write
    /// one anywhere: those operations stay with the terminal.
    @Test(arguments: ["send_file", "save_file", "changed", "send_lines"])
    func operationsOnPathsAreNotOffered(_ method: String) async throws {
        let fixture = try Fixture()
        try await fixture.serve { http in
            let answer = try await http.request(
                "POST", "/api/v1/\(method)", headers: fixture.signedIn(),
                body: #"{"path":"/etc/passwd","peer":"\#(String(repeating: "a", count: 64))"}"#)
            #expect(answer.status == 403)
            #expect(answer.body.contains("not offered to the web app"))
        }
    }

    @Test func aBodyLargerThanARequestLineIsRefusedUnread() async throws {
        let fixture = try Fixture()
        try await fixture.serve { http in
            let padding = String(repeating: "x", count: ControlServer.maxLineBytes + 1)
            let answer = try await http.request(
                "POST", "/api/v1/typing_setting", headers: fixture.signedIn(),
                body: #"{"value":false,"pad":"\#(padding)"}"#)
            #expect(answer.status == 413)
            // Nothing was changed by it: the setting still reads as it started.
            let setting = try await http.request("POST", "/api/v1/typing_setting", headers: fixture.signedIn())
            #expect(setting.body.contains(#""typingIndicators":true"#))
        }
    }

    /// A cross-site form post or fetch carries the page's origin: refused before the
    /// operation runs, while the same request from the app's own origin goes through.
    @Test func changesFromAnotherOriginAreRefused() async throws {
        let fixture = try Fixture()
        try await fixture.serve { http in
            let foreign = try await http.request(
                "POST", "/api/v1/typing_setting", headers: fixture.signedIn(origin: "http://evil.example"),
                body: #"{"value":false}"#)
            #expect(foreign.status == 403)
            let unchanged = try await http.request("POST", "/api/v1/typing_setting", headers: fixture.signedIn())
            #expect(unchanged.body.contains(#""typingIndicators":true"#))
            let own = try await http.request(
                "POST", "/api/v1/typing_setting", headers: fixture.signedIn(origin: "http://127.0.0.1:\(http.port)"),
                body: #"{"value":false}"#)
            #expect(own.status == 200)
            #expect(own.body.contains(#""typingIndicators":false"#))
        }
    }

    /// DNS rebinding: the attacker's name in `Host`, with the cookie it could not carry
    /// anyway, is refused; the machine's own names and addresses are not.
    @Test func aReboundNameIsRefused() async throws {
        let fixture = try Fixture()
        try await fixture.serve { http in
            var rebound = fixture.cookie
            rebound["Host"] = "rebind.example:\(http.port)"
            let refused = try await http.request("GET", "/", headers: rebound)
            #expect(refused.status == 403)
            var local = fixture.cookie
            local["Host"] = "localhost:\(http.port)"
            let served = try await http.request("GET", "/", headers: local)
            #expect(served.status == 200)
        }
    }

    @Test func everyAnswerCarriesTheSecurityHeaders() async throws {
        let fixture = try Fixture()
        try await fixture.serve { http in
            for (path, headers) in [("/", [:]), ("/", fixture.cookie), ("/nothing-here", fixture.cookie)] {
                let answer = try await http.request("GET", path, headers: headers)
                let policy = try #require(answer.headers["content-security-policy"])
                #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"))
                #expect(!policy.contains("unsafe"))
                #expect(answer.headers["x-content-type-options"] == "nosniff")
                #expect(answer.headers["referrer-policy"] == "no-referrer")
            }
        }
    }

    @Test func theFrontEndIsServedWithETags() async throws {
        let fixture = try Fixture()
        try await fixture.serve { http in
            let page = try await http.request("GET", "/", headers: fixture.cookie)
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            let etag = try #require(page.headers["etag"])
            var again = fixture.cookie
            again["If-None-Match"] = etag
            let unchanged = try await http.request("GET", "/", headers: again)
            #expect(unchanged.status == 304)
            #expect(unchanged.body.isEmpty)
        }
    }

    @Test func passwordLoginsAreCheckedAndLimited() async throws {
        let fixture = try Fixture()
        try await fixture.serve(password: "correct horse") { http in
            let form = ["Content-Type": "application/x-www-form-urlencoded"]
            let page = try await http.request("GET", "/")
            #expect(page.status == 401)
            #expect(page.body.contains(#"name="password""#))
            let right = try await http.request("POST", "/login", headers: form, body: "password=correct+horse")
            #expect(right.status == 303)
            #expect(right.headers["set-cookie"]?.hasPrefix("confab_session=") == true)
            for _ in 0..<5 {
                let wrong = try await http.request("POST", "/login", headers: form, body: "password=guess")
                #expect(wrong.status == 401)
                #expect(wrong.headers["set-cookie"] == nil)
            }
            // Even the right password waits now: a guesser learns nothing from the answer.
            let limited = try await http.request("POST", "/login", headers: form, body: "password=correct+horse")
            #expect(limited.status == 429)
        }
    }
}

/// Files through the browser's routes: what is uploaded is sent as `send_file` sends it, and
/// comes back byte for byte, inline only when its own bytes are a raster image.
@Suite struct WebFileRoutesTests {
    let fixture: WebRoutesTests.Fixture
    let conversation: ConversationID

    init() async throws {
        fixture = try WebRoutesTests.Fixture()
        let bob = NodeID(SigningKeyPair.generate().publicKey)
        conversation = try await fixture.messenger.perform(
            Operations.Create(participants: [bob], title: nil, firstMessage: nil)
        ).conversation
    }

    private func upload(_ http: LoopbackHTTP, name: String, body: String) async throws -> LoopbackHTTP.Response {
        try await upload(http, name: name, bytes: Array(body.utf8))
    }

    private func upload(_ http: LoopbackHTTP, name: String, bytes: [UInt8]) async throws -> LoopbackHTTP.Response {
        let query =
            "conversation=\(conversation.hex)&name=\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        return try await http.request("POST", "/api/v1/upload?" + query, headers: fixture.signedIn(), bytes: bytes)
    }

    private func fileID(of answer: LoopbackHTTP.Response) throws -> String {
        let json = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        return try #require((json?["result"] as? [String: Any])?["file"] as? String)
    }

    @Test func aPNGComesBackInline() async throws {
        try await fixture.serve { http in
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<300_000).map { UInt8($0 % 251) }
            let sent = try await upload(http, name: "photo.png", bytes: png)
            #expect(sent.status == 200)
            let file = try fileID(of: sent)
            let back = try await http.request("GET", "/api/v1/files/\(file)", headers: fixture.cookie)
            #expect(back.status == 200)
            #expect(back.headers["content-type"] == "image/png")
            #expect(back.headers["content-disposition"]?.hasPrefix("inline;") == true)
            #expect(back.bytes == png)
        }
    }

    /// A page named to break out of the header, with script inside, is a download whatever
    /// it is called, and its name is made safe.
    @Test func aHostileFileIsADownloadUnderASafeName() async throws {
        try await fixture.serve { http in
            let page = "<html><script>alert(1)</script></html>"
            let sent = try await upload(http, name: "\"><img src=x onerror=alert(1)>.png", body: page)
            #expect(sent.status == 200)
            let back = try await http.request("GET", "/api/v1/files/\(try fileID(of: sent))", headers: fixture.cookie)
            #expect(back.status == 200)
            #expect(back.headers["content-type"] == "application/octet-stream")
            let disposition = try #require(back.headers["content-disposition"])
            #expect(disposition.hasPrefix("attachment; filename=\""))
            #expect(disposition.filter { $0 == "\"" }.count == 2)
            #expect(back.body == page)
        }
    }

    @Test func filesNeedTheCookieAndAnIDHeldHere() async throws {
        try await fixture.serve { http in
            let sent = try await upload(http, name: "notes.txt", body: "hello")
            let file = try fileID(of: sent)
            #expect(try await http.request("GET", "/api/v1/files/\(file)").status == 401)
            let unknown = try await http.request(
                "GET", "/api/v1/files/" + String(repeating: "ab", count: 32), headers: fixture.cookie)
            #expect(unknown.status == 404)
            #expect(try await http.request("GET", "/api/v1/files/xyz", headers: fixture.cookie).status == 400)
        }
    }

    /// A body announced larger than the node sends is refused before a byte is staged.
    @Test func anUploadTooLargeIsRefused() async throws {
        try await fixture.serve { http in
            var headers = fixture.signedIn()
            headers["Content-Length"] = "\(LocalMessenger.defaultMaxFileSize + 1)"
            let query = "conversation=\(conversation.hex)&name=big.bin"
            let answer = try await http.request("POST", "/api/v1/upload?" + query, headers: headers)
            #expect(answer.status == 413)
            let staged = fixture.directory.url.appendingPathComponent("uploads").path
            #expect((try? FileManager.default.contentsOfDirectory(atPath: staged))?.isEmpty ?? true)
        }
    }
}
