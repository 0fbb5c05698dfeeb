import ConfabModel
import Foundation
import Hummingbird

/// `GET /` asks for a name, `POST /welcome` takes it: a name is checked as the terminal's
/// first run checks it (empty keeps the suggested one), and a valid one is handed on once.
/// Everything else the app would serve answers that there is no identity yet.
struct WelcomeRoutes<Context: RequestContext>: Sendable {
    let suggested: String
    let chosen: @Sendable (String) -> Void

    func add(to router: Router<Context>) {
        router.get("/") { _, _ in WelcomePage.ask(suggested: suggested) }
        router.post("/welcome") { request, _ in try await welcome(request) }
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
        chosen(name)
        return WelcomePage.created(name: name)
    }

    /// What the store would refuse, said before anything is made.
    static func refusal(of name: String) -> String? {
        guard name.utf8.count <= Limits.maxNameBytes else {
            return "A name is at most \(Limits.maxNameBytes) bytes: choose a shorter one."
        }
        return DisplayName.keyLikeRefusal(name)
    }
}
