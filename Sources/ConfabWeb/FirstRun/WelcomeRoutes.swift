import ConfabModel
import ConfabWire
import Foundation
import Hummingbird

/// `GET /` asks for a name, `POST /welcome` takes it: a name is checked as the terminal's
/// first run checks it (empty keeps the suggested one), and a valid one is handed on once.
/// `POST /welcome/link` starts joining the person's devices with the code of `confab devices
/// link` (and the offer's address, when given) and shows the words; `POST
/// /welcome/link/answer` gives the person's Yes or No, and a made link is handed on once.
/// Everything else the app would serve answers that there is no identity yet.
struct WelcomeRoutes<Context: RequestContext>: Sendable {
    let suggested: String
    let joining: WebLinkJoin
    let chosen: @Sendable (WebFirstRun.Welcome) -> Void

    func add(to router: Router<Context>) {
        router.get("/") { _, _ in WelcomePage.ask(suggested: suggested) }
        router.post("/welcome") { request, _ in try await welcome(request) }
        router.post("/welcome/link") { request, _ in try await link(request) }
        router.post("/welcome/link/answer") { request, _ in try await answer(request) }
        WebAssets().add(to: router, only: ["/app.css", "/icon.svg"])
        router.on("/api/**", method: .get) { _, _ -> Response in throw Self.notYet }
        router.on("/api/**", method: .post) { _, _ -> Response in throw Self.notYet }
    }

    private static var notYet: WebRefusal {
        .conflict("this computer has no Confab identity yet: choose your name at / first")
    }

    private func welcome(_ request: Request) async throws -> Response {
        let typed = try await FormPost.read(request, tooLarge: "a name is at most 64 bytes")["name"]
        let name = DisplayName.cleaned(typed).isEmpty ? suggested : DisplayName.cleaned(typed)
        if let refusal = Self.refusal(of: name) {
            return WelcomePage.ask(suggested: suggested, refusal: refusal, typed: typed)
        }
        guard await joining.takeName() else {
            return WelcomePage.ask(
                suggested: suggested,
                refusal: "A link to your other machine is under way: answer it, or wait for it to end, first.",
                typed: typed)
        }
        chosen(.name(name))
        return WelcomePage.created(name: name)
    }

    private func link(_ request: Request) async throws -> Response {
        let form = try await FormPost.read(request, tooLarge: "a code and an address are a few dozen bytes")
        let (typedCode, typedAddress) = (form["code"], form["address"].trimmingCharacters(in: .whitespaces))
        func refused(_ why: String) -> Response {
            WelcomePage.ask(suggested: suggested, linkRefusal: why, code: typedCode, address: typedAddress)
        }
        guard let code = LinkCode(text: typedCode) else {
            return refused(
                "That is not a link code: \(LinkCode.problem(typedCode) ?? ""). Type the code \"confab devices "
                    + "link\" shows on your other machine.")
        }
        var address: HostPort?
        if !typedAddress.isEmpty {
            guard let given = try? HostPort(typedAddress) else {
                return refused(
                    "\"\(typedAddress)\" is not an address: give HOST:PORT as \"confab devices link\" prints it "
                        + "after --peer, or leave it empty to look for the offer on the LAN.")
            }
            address = given
        }
        return try await show(await joining.start(code: code, address: address), code: typedCode, address: typedAddress)
    }

    private func answer(_ request: Request) async throws -> Response {
        let yes = try await FormPost.read(request, tooLarge: "an answer is a word")["answer"] == "yes"
        return try await show(await joining.answer(yes), code: "", address: "")
    }

    private func show(_ step: WebLinkJoin.Step, code: String, address: String) async throws -> Response {
        switch step {
        case .words(let prompt):
            return WelcomePage.words(prompt)
        case .linked(let linked):
            chosen(.linked(linked))
            return WelcomePage.linked(person: linked.personName, device: linked.profile.me.shortHex)
        case .failed(let why):
            return WelcomePage.ask(
                suggested: suggested, linkRefusal: "Not linked: \(why). Nothing was written here.", code: code,
                address: address)
        }
    }

    /// What the store would refuse, said before anything is made.
    static func refusal(of name: String) -> String? {
        guard name.utf8.count <= Limits.maxNameBytes else {
            return "A name is at most \(Limits.maxNameBytes) bytes: choose a shorter one."
        }
        return DisplayName.keyLikeRefusal(name)
    }
}
