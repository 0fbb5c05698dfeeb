import Hummingbird

/// No session cookie, no data: every route but the login answers 401 without one, the
/// WebSocket included. The page a browser gets then says how to sign in (a login form
/// where a password is set), and runs no script.
struct SessionMiddleware<Context: RequestContext>: RouterMiddleware {
    static var cookieName: String { "confab_session" }

    let token: LoginToken
    let passwordLogin: Bool

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if request.uri.path == "/login" { return try await next(request, context) }
        guard let cookie = request.cookies[Self.cookieName]?.value, token.admits(cookie: cookie) else {
            if request.uri.path.hasPrefix("/api/") {
                throw WebRefusal.unauthorized("not signed in: run confab open to sign this browser in")
            }
            return LoginPage.response(status: .unauthorized, passwordLogin: passwordLogin, failed: false)
        }
        return try await next(request, context)
    }
}
