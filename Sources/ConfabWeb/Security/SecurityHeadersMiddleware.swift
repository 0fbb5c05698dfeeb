import HTTPTypes
import Hummingbird

/// Every answer, errors too, forbids what the app never does: script or style from
/// anywhere but itself (so a message that smuggled markup in still runs nothing), framing
/// (clickjacking), guessing types, and telling other sites where the person came from.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var contentSecurityPolicy: String {
        [
            "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob: data:",
            "connect-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Cross-Origin-Opener-Policy")!] = "same-origin"
        response.headers[HTTPField.Name("Cross-Origin-Resource-Policy")!] = "same-origin"
        return response
    }
}
