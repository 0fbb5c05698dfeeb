import ConfabClient
import ConfabModel
import ConfabNode
import ConfabTestSupport
import Foundation
import Testing

@testable import ConfabWeb

/// The web app's first run linking this machine to the person's devices (Protocol.md
/// §20.10): the code and the offer's address posted behind the app's guards, the words shown
/// as the offer shows them, and the link made only on Yes on both sides. A real offer runs
/// in this process on 127.0.0.1; discovery is off.
@Suite struct WebFirstRunLinkTests {
    /// Alice's offer on 127.0.0.1, answering `answer` to the words it shows.
    struct Offer {
        let alice: Profile
        let port: Int
        let code: String
        let words: AsyncStream<[String]>
        let task: Task<LinkOffer.Linked, any Error>

        init(answer: Bool) async throws {
            alice = try Profile.initialize(
                DataDirectory(url: try ConfabBinary.temporaryDirectory("web-link-alice")), name: "alice")
            let offer = try LinkOffer(profile: alice, networkKey: .default)
            code = offer.code.description
            let (ports, portsIn) = AsyncStream.makeStream(of: Int.self)
            let (words, wordsIn) = AsyncStream.makeStream(of: [String].self)
            self.words = words
            task = Task {
                try await offer.run(
                    host: "127.0.0.1", port: 0, timeout: .seconds(60),
                    events: { if case .listening(let port) = $0 { portsIn.yield(port) } },
                    confirm: { prompt in
                        wordsIn.yield(prompt.words)
                        return answer
                    })
            }
            var iterator = ports.makeAsyncIterator()
            port = try #require(await iterator.next())
        }
    }

    /// Signed in to the first run's page: the headers of the person's own posts.
    static func signIn(_ asking: WebFirstRunTests.Asking) async throws -> (LoopbackHTTP, [String: String]) {
        let http = LoopbackHTTP(port: asking.port)
        let link = asking.link
        let signedIn = try await http.request("GET", String(link[link.range(of: "/login")!.lowerBound...]))
        let cookie = try #require(signedIn.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        return (
            http,
            [
                "Cookie": cookie, "Origin": "http://127.0.0.1:\(asking.port)", "Sec-Fetch-Site": "same-origin",
                "Content-Type": "application/x-www-form-urlencoded",
            ]
        )
    }

    static func words(in page: String) -> String? {
        page.firstMatch(of: /<p class="link-words" role="status"><strong>([a-z ]+)<\/strong><\/p>/).map { String($0.1) }
    }

    @Test func yesOnBothSidesLinksThisMachineBehindTheAppsGuards() async throws {
        let offer = try await Offer(answer: true)
        let asking = try await WebFirstRunTests.Asking(suggested: "me")
        let (http, own) = try await Self.signIn(asking)
        let page = try await http.request("GET", "/", headers: ["Cookie": own["Cookie"]!])
        #expect(page.body.contains("Link to your other machine"))
        let body = "code=\(offer.code)&address=127.0.0.1%3A\(offer.port)"

        let foreign = try await http.request(
            "POST", "/welcome/link", headers: own.merging(["Origin": "http://evil.example"]) { $1 }, body: body)
        #expect(foreign.status == 403)
        let noCookie = try await http.request(
            "POST", "/welcome/link", headers: own.filter { $0.key != "Cookie" }, body: body)
        #expect(noCookie.status == 401)
        let mistyped = try await http.request("POST", "/welcome/link", headers: own, body: "code=ABCDE-FGHJU")
        #expect(mistyped.status == 422)
        #expect(mistyped.body.contains("That is not a link code: &quot;U&quot; is not in a link code"))
        let noAddress = try await http.request("POST", "/welcome/link", headers: own, body: "code=\(offer.code)")
        #expect(noAddress.status == 422)
        #expect(noAddress.body.contains("does not listen for beacons (--no-discovery)"))
        let badAddress = try await http.request(
            "POST", "/welcome/link", headers: own, body: "code=\(offer.code)&address=nowhere")
        #expect(badAddress.body.contains("&quot;nowhere&quot; is not an address"))
        #expect(!FileManager.default.fileExists(atPath: asking.directory.identityFile.path))

        let shown = try await http.request("POST", "/welcome/link", headers: own, body: body)
        #expect(shown.status == 200, "\(shown.body)")
        let words = try #require(Self.words(in: shown.body), "\(shown.body)")
        var offered = offer.words.makeAsyncIterator()
        #expect(await offered.next()?.joined(separator: " ") == words)
        #expect(words.split(separator: " ").count == 5)
        // A second join while this one waits is refused.
        let second = try await http.request("POST", "/welcome/link", headers: own, body: body)
        #expect(second.body.contains("A link is already under way"))
        // ...and so is a name: a new person and a link never write one directory.
        let name = try await http.request("POST", "/welcome", headers: own, body: "name=Mallory")
        #expect(name.status == 422)
        #expect(name.body.contains("A link to your other machine is under way"))

        let linked = try await http.request("POST", "/welcome/link/answer", headers: own, body: "answer=yes")
        #expect(linked.status == 200, "\(linked.body)")
        #expect(linked.body.contains("Linked to alice"))
        guard case .linked(let made) = try await asking.task.value else {
            Issue.record("the first run did not end linked")
            return
        }
        #expect(made.person == offer.alice.me)
        #expect(made.profile.me != offer.alice.me)
        #expect(try made.profile.store.linkedPerson() == offer.alice.me)
        #expect(try await offer.task.value.device == made.profile.me)
    }

    @Test func noHereEndsBothAndWritesNothing() async throws {
        let offer = try await Offer(answer: true)
        let asking = try await WebFirstRunTests.Asking(suggested: "me")
        let (http, own) = try await Self.signIn(asking)
        let shown = try await http.request(
            "POST", "/welcome/link", headers: own, body: "code=\(offer.code)&address=127.0.0.1%3A\(offer.port)")
        #expect(Self.words(in: shown.body) != nil, "\(shown.body)")
        let refused = try await http.request("POST", "/welcome/link/answer", headers: own, body: "answer=no")
        #expect(refused.status == 422)
        #expect(refused.body.contains("Not linked: "), "\(refused.body)")
        #expect(refused.body.contains("Nothing was written here."))
        await #expect(throws: LinkFailure.self) { try await offer.task.value }
        #expect(!FileManager.default.fileExists(atPath: asking.directory.identityFile.path))
        // The page still offers both: a name, or another code.
        #expect(refused.body.contains("Your display name") && refused.body.contains("Link code"))
        let named = try await http.request("POST", "/welcome", headers: own, body: "name=Alice")
        #expect(named.status == 200)
        #expect(try await asking.task.value.name == "Alice")
    }

    @Test func anUnansweredQuestionCountsAsNo() async throws {
        let offer = try await Offer(answer: true)
        let asking = try await WebFirstRunTests.Asking(
            suggested: "me", linking: .init(deviceName: "laptop", discovery: nil, answerTimeout: .milliseconds(300)))
        let (http, own) = try await Self.signIn(asking)
        let shown = try await http.request(
            "POST", "/welcome/link", headers: own, body: "code=\(offer.code)&address=127.0.0.1%3A\(offer.port)")
        #expect(Self.words(in: shown.body) != nil, "\(shown.body)")
        await #expect(throws: LinkFailure.self) { try await offer.task.value }
        let late = try await http.request("POST", "/welcome/link/answer", headers: own, body: "answer=yes")
        #expect(late.status == 422)
        #expect(late.body.contains("Not linked: "), "\(late.body)")
        #expect(!FileManager.default.fileExists(atPath: asking.directory.identityFile.path))
        asking.task.cancel()
    }
}

extension WebFirstRun.Welcome {
    var name: String? {
        if case .name(let name) = self { return name }
        return nil
    }
}
