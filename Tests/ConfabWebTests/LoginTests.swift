import ConfabClient
import ConfabTestSupport
import Foundation
import Testing

@testable import ConfabWeb

@Suite struct LoginTests {
    @Test func failedLoginsAreLimitedAndTheLimitRefills() {
        let limiter = LoginLimiter(burst: 3, interval: .seconds(10))
        let start = ContinuousClock.now
        for _ in 0..<3 {
            #expect(limiter.mayTry(now: start))
            limiter.failed(now: start)
        }
        #expect(!limiter.mayTry(now: start))
        #expect(!limiter.mayTry(now: start + .seconds(9)))
        #expect(limiter.mayTry(now: start + .seconds(10)))
    }

    /// The token is made once, owner-only, and read back the same, so a login survives a
    /// restart; the cookie is derived from it and is not it.
    @Test func theTokenIsKeptOwnerOnly() throws {
        let directory = DataDirectory(url: try ConfabBinary.temporaryDirectory("web-token"))
        #expect(try LoginToken.load(in: directory) == nil)
        let made = try LoginToken.loadOrCreate(in: directory)
        let attributes = try FileManager.default.attributesOfItem(atPath: LoginToken.url(in: directory).path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let again = try LoginToken.loadOrCreate(in: directory)
        #expect(again.token == made.token)
        #expect(made.cookieValue != made.token)
        #expect(again.admits(cookie: made.cookieValue))
        #expect(!again.admits(cookie: String(made.cookieValue.reversed())))
        #expect(!again.admits(cookie: "zz"))
        #expect(made.matches(made.token))
        #expect(!made.matches(made.token.uppercased()))
        #expect(made.loginLink(address: "http://127.0.0.1:7462/").hasSuffix("/login?token=" + made.token))
    }

    @Test func aTokenFileOthersCanReadIsRefused() throws {
        let directory = DataDirectory(url: try ConfabBinary.temporaryDirectory("web-token"))
        _ = try LoginToken.loadOrCreate(in: directory)
        chmod(LoginToken.url(in: directory).path, 0o644)
        #expect {
            try LoginToken.load(in: directory)
        } throws: { error in
            "\(error)".contains("readable by others")
        }
    }
}
