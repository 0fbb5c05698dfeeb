import ConfabClient
import ConfabTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
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

        func app(password: String? = nil) -> some ApplicationProtocol {
            Application(router: WebApp.router(messenger: messenger, token: token, password: password))
        }

        var cookie: HTTPFields { [.cookie: "confab_session=\(token.cookieValue)"] }

        func signedIn(origin: String? = nil) -> HTTPFields {
            var headers = cookie
            if let origin { headers[.origin] = origin }
            headers[.contentType] = "application/json"
            return headers
        }
    }

    @Test func withoutTheCookieNothingIsAnswered() async throws {
        let fixture = try Fixture()
        try await fixture.app().test(.live) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(String(buffer: response.body).contains("confab open"))
                #expect(!String(buffer: response.body).contains("<script"))
            }
            try await client.execute(uri: "/api/v1/conversations", method: .post) { response in
                #expect(response.status == .unauthorized)
                #expect(String(buffer: response.body).contains(#""ok":false"#))
            }
            try await client.execute(
                uri: "/api/v1/conversations", method: .post,
                headers: [.cookie: "confab_session=" + String(repeating: "0", count: 64)]
            ) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test func theLoginLinkSetsAStrictHttpOnlyCookie() async throws {
        let fixture = try Fixture()
        try await fixture.app().test(.live) { client in
            try await client.execute(uri: "/login?token=" + String(repeating: "a", count: 64), method: .get) {
                #expect($0.status == .unauthorized)
                #expect($0.headers[.setCookie] == nil)
            }
            try await client.execute(uri: "/login?token=" + fixture.token.token, method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/")
                let cookie = try #require(response.headers[.setCookie])
                #expect(cookie.hasPrefix("confab_session=\(fixture.token.cookieValue);"))
                #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            }
        }
    }

    @Test func operationsAreTheControlProtocols() async throws {
        let fixture = try Fixture()
        try await fixture.app().test(.live) { client in
            try await client.execute(
                uri: "/api/v1/conversations", method: .post, headers: fixture.signedIn(), body: ByteBuffer(string: "{}")
            ) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == #"{"ok":true,"result":[],"v":1}"#)
            }
            try await client.execute(uri: "/api/v1/nonsense", method: .post, headers: fixture.signedIn()) {
                #expect($0.status == .notFound)
            }
            try await client.execute(
                uri: "/api/v1/history", method: .post, headers: fixture.signedIn(), body: ByteBuffer(string: "{}")
            ) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("history needs param conversation"))
            }
            try await client.execute(
                uri: "/api/v1/send", method: .post, headers: fixture.signedIn(),
                body: ByteBuffer(string: #"{"text":"hi","conversation":"00000000000000000000000000000001"}"#)
            ) { response in
                #expect(response.status == .unprocessableContent)
            }
        }
    }

    /// A page with the cookie could otherwise read any file here into a message, or write
    /// one anywhere: those operations stay with the terminal.
    @Test(arguments: ["send_file", "save_file", "changed", "send_lines"])
    func operationsOnPathsAreNotOffered(_ method: String) async throws {
        let fixture = try Fixture()
        try await fixture.app().test(.live) { client in
            try await client.execute(
                uri: "/api/v1/\(method)", method: .post, headers: fixture.signedIn(),
                body: ByteBuffer(string: #"{"path":"/etc/passwd","peer":"\#(String(repeating: "a", count: 64))"}"#)
            ) { response in
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body).contains("not offered to the web app"))
            }
        }
    }

    @Test func aBodyLargerThanARequestLineIsRefusedUnread() async throws {
        let fixture = try Fixture()
        try await fixture.app().test(.live) { client in
            let text = String(repeating: "x", count: OperationRoutes<BasicRequestContext>.maxBodyBytes + 1)
            try await client.execute(
                uri: "/api/v1/typing_setting", method: .post, headers: fixture.signedIn(),
                body: ByteBuffer(string: #"{"value":false,"pad":"\#(text)"}"#)
            ) { response in
                #expect(response.status == .contentTooLarge)
            }
            // Nothing was changed by it: the setting still reads as it started.
            try await client.execute(uri: "/api/v1/typing_setting", method: .post, headers: fixture.signedIn()) {
                #expect(String(buffer: $0.body).contains(#""typingIndicators":true"#))
            }
        }
    }

    /// A cross-site form post or fetch carries the page's origin: refused before the
    /// operation runs, while the same request from the app's own origin goes through.
    @Test func changesFromAnotherOriginAreRefused() async throws {
        let fixture = try Fixture()
        try await fixture.app().test(.live) { client in
            let off = ByteBuffer(string: #"{"value":false}"#)
            try await client.execute(
                uri: "/api/v1/typing_setting", method: .post, headers: fixture.signedIn(origin: "http://evil.example"),
                body: off
            ) { response in
                #expect(response.status == .forbidden)
            }
            try await client.execute(uri: "/api/v1/typing_setting", method: .post, headers: fixture.signedIn()) {
                #expect(String(buffer: $0.body).contains(#""typingIndicators":true"#))
            }
            try await client.execute(
                uri: "/api/v1/typing_setting", method: .post, headers: fixture.signedIn(origin: "http://localhost"),
                body: off
            ) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains(#""typingIndicators":false"#))
            }
        }
    }

    @Test func everyAnswerCarriesTheSecurityHeaders() async throws {
        let fixture = try Fixture()
        try await fixture.app().test(.live) { client in
            for (uri, headers) in [("/", HTTPFields()), ("/", fixture.cookie), ("/nothing-here", fixture.cookie)] {
                try await client.execute(uri: uri, method: .get, headers: headers) { response in
                    let policy = try #require(response.headers[.contentSecurityPolicy])
                    #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"))
                    #expect(!policy.contains("unsafe"))
                    #expect(response.headers[.xContentTypeOptions] == "nosniff")
                    #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                }
            }
        }
    }

    @Test func theFrontEndIsServedWithETags() async throws {
        let fixture = try Fixture()
        try await fixture.app().test(.live) { client in
            let etag = try await client.execute(uri: "/", method: .get, headers: fixture.cookie) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                return try #require(response.headers[.eTag])
            }
            var again = fixture.cookie
            again[.ifNoneMatch] = etag
            try await client.execute(uri: "/", method: .get, headers: again) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
        }
    }

    @Test func passwordLoginsAreCheckedAndLimited() async throws {
        let fixture = try Fixture()
        try await fixture.app(password: "correct horse").test(.live) { client in
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(String(buffer: response.body).contains(#"name="password""#))
            }
            try await client.execute(
                uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "password=correct+horse")
            ) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.setCookie]?.hasPrefix("confab_session=") == true)
            }
            for _ in 0..<5 {
                try await client.execute(
                    uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "password=guess")
                ) { response in
                    #expect(response.status == .unauthorized)
                    #expect(response.headers[.setCookie] == nil)
                }
            }
            // Even the right password waits now: a guesser learns nothing from the answer.
            try await client.execute(
                uri: "/login", method: .post, headers: form, body: ByteBuffer(string: "password=correct+horse")
            ) { response in
                #expect(response.status == .tooManyRequests)
            }
        }
    }
}
