import ConfabCrypto
import Foundation
import Hummingbird

/// `GET /login?token=…` (the link `confab open` gives) and, where a password is set,
/// `POST /login` with the password: each sets the session cookie and sends the browser to
/// the app. Failures of either are rate-limited together.
struct LoginRoutes<Context: RequestContext>: Sendable {
    let token: LoginToken
    let password: String?
    let limiter = LoginLimiter()

    func add(to router: Router<Context>) {
        router.get("/login") { request, _ in try await tokenLogin(request) }
        router.post("/login") { request, context in try await passwordLogin(request, context: context) }
    }

    private func tokenLogin(_ request: Request) async throws -> Response {
        guard let given = request.uri.queryParameters["token"].map(String.init) else {
            return LoginPage.response(status: .unauthorized, passwordLogin: password != nil, failed: false)
        }
        guard limiter.mayTry() else { throw WebRefusal.tooManyLogins() }
        guard token.matches(given) else {
            limiter.failed()
            throw WebRefusal.unauthorized(
                "this login link is not this node's (an old one?): run confab open for a fresh one")
        }
        return signedIn()
    }

    private func passwordLogin(_ request: Request, context: Context) async throws -> Response {
        guard let password else { throw WebRefusal.notFound("no password is set for this node: run confab open") }
        guard limiter.mayTry() else { throw WebRefusal.tooManyLogins() }
        let given = try await FormPost.read(request, tooLarge: "a login form is a few bytes")["password"]
        let matches = SecureBytes(Hash.blake2b(Array(given.utf8))).isEqual(
            to: SecureBytes(Hash.blake2b(Array(password.utf8))))
        guard matches else {
            limiter.failed()
            return LoginPage.response(status: .unauthorized, passwordLogin: true, failed: true)
        }
        return signedIn()
    }

    /// The cookie the browser sends with the app's own requests only (SameSite=Strict: not
    /// with a request another site's page makes) and that no script reads (HttpOnly).
    private func signedIn() -> Response {
        var headers = HTTPFields()
        headers[.location] = "/"
        headers[.setCookie] =
            "\(SessionMiddleware<Context>.cookieName)=\(token.cookieValue); Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000"
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }
}
