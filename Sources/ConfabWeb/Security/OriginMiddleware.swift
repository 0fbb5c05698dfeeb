import HTTPTypes
import Hummingbird

/// Refuses a request whose `Host` is not this machine's app (DNS rebinding), and a
/// state-changing request or WebSocket upgrade from another site's page (cross-site request
/// forgery, cross-site WebSocket hijacking): `SameOrigin` decides.
struct OriginMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let host = request.head.authority, SameOrigin.allowsHost(host) else {
            throw WebRefusal.forbidden("this is the Confab app on this machine: open it as http://127.0.0.1")
        }
        let safe = request.method == .get || request.method == .head
        let upgrade = request.headers[.upgrade]?.lowercased() == "websocket"
        if !safe || upgrade {
            guard
                SameOrigin.allowsChange(
                    origin: request.headers[.origin], fetchSite: request.headers[HTTPField.Name("Sec-Fetch-Site")!],
                    host: host.lowercased())
            else {
                throw WebRefusal.forbidden("refused a request from another site's page")
            }
        }
        return try await next(request, context)
    }
}
