import Testing

@testable import ConfabWeb

@Suite struct SameOriginTests {
    @Test(arguments: ["127.0.0.1:7462", "localhost:7462", "[::1]:7462", "LOCALHOST", "192.168.1.5:80", "[fe80::1]"])
    func hostsOfThisMachineAreAllowed(_ host: String) {
        #expect(SameOrigin.allowsHost(host))
    }

    /// A name the attacker controls, rebound to 127.0.0.1, is refused whatever its port;
    /// so are malformed headers.
    @Test(arguments: [
        "evil.example:7462", "evil.example", "127.0.0.1.evil.example", "localhost.evil.example:7462", "",
        "[::1", "127.0.0.1:99999", "a:b:c", "[::1]x",
    ])
    func namesThatCanBeReboundAreRefused(_ host: String) {
        #expect(!SameOrigin.allowsHost(host))
    }

    @Test func theAppsOwnPagesMayChangeThings() {
        #expect(
            SameOrigin.allowsChange(origin: "http://127.0.0.1:7462", fetchSite: "same-origin", host: "127.0.0.1:7462"))
        // A form the app's own page posts, under its no-referrer policy.
        #expect(SameOrigin.allowsChange(origin: "null", fetchSite: "same-origin", host: "127.0.0.1:7462"))
        // A script with the cookie: no browser headers at all.
        #expect(SameOrigin.allowsChange(origin: nil, fetchSite: nil, host: "127.0.0.1:7462"))
    }

    @Test func anotherSitesPagesMayNot() {
        #expect(
            !SameOrigin.allowsChange(origin: "http://evil.example", fetchSite: "cross-site", host: "127.0.0.1:7462"))
        // The same machine on another port is another origin (another program's page).
        #expect(
            !SameOrigin.allowsChange(origin: "http://127.0.0.1:8080", fetchSite: "same-site", host: "127.0.0.1:7462"))
        #expect(!SameOrigin.allowsChange(origin: "null", fetchSite: nil, host: "127.0.0.1:7462"))
        // A sandboxed frame of another site's page.
        #expect(!SameOrigin.allowsChange(origin: "null", fetchSite: "cross-site", host: "127.0.0.1:7462"))
        // A browser that sends only one of the two headers is still held to it.
        #expect(!SameOrigin.allowsChange(origin: nil, fetchSite: "cross-site", host: "127.0.0.1:7462"))
        #expect(!SameOrigin.allowsChange(origin: "https://127.0.0.1:7462", fetchSite: nil, host: "127.0.0.1:7462"))
    }
}
