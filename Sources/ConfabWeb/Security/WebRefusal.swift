import Foundation
import Hummingbird

/// A request refused before any operation ran: its status, and the words for the caller —
/// the API's JSON error shape under /api, plain text elsewhere.
struct WebRefusal: HTTPResponseError {
    private enum Kind {
        case forbidden, unauthorized, tooLarge, tooManyLogins, notFound, badRequest, conflict
    }

    private let kind: Kind
    let message: String

    static func forbidden(_ message: String) -> Self { Self(kind: .forbidden, message: message) }
    static func unauthorized(_ message: String) -> Self { Self(kind: .unauthorized, message: message) }
    static func tooLarge(_ message: String) -> Self { Self(kind: .tooLarge, message: message) }
    static func tooManyLogins() -> Self {
        Self(
            kind: .tooManyLogins,
            message: "too many failed logins: wait a minute, then use a fresh link from confab open")
    }
    static func notFound(_ message: String) -> Self { Self(kind: .notFound, message: message) }
    static func badRequest(_ message: String) -> Self { Self(kind: .badRequest, message: message) }
    static func conflict(_ message: String) -> Self { Self(kind: .conflict, message: message) }

    var status: HTTPResponse.Status {
        switch kind {
        case .forbidden: .forbidden
        case .unauthorized: .unauthorized
        case .tooLarge: .contentTooLarge
        case .tooManyLogins: .tooManyRequests
        case .notFound: .notFound
        case .badRequest: .badRequest
        case .conflict: .conflict
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        if request.uri.path.hasPrefix("/api/") {
            return OperationAnswer.failure(message, status: status)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}
