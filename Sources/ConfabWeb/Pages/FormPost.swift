import Foundation
import Hummingbird

/// A form a page of the app posts (`application/x-www-form-urlencoded`): a few fields, read
/// whole up to a few kilobytes; larger is refused before it is read further.
struct FormPost {
    static var maxBytes: Int { 4096 }

    private let items: [URLQueryItem]

    static func read(_ request: Request, tooLarge: String) async throws -> FormPost {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: maxBytes)
        } catch {
            throw WebRefusal.tooLarge(tooLarge)
        }
        // In a form body `+` is a space; URLComponents reads it as a plus.
        let query = "?" + String(buffer: body).replacingOccurrences(of: "+", with: "%20")
        return FormPost(items: URLComponents(string: query)?.queryItems ?? [])
    }

    /// The field's value, or "" when it is absent.
    subscript(_ name: String) -> String {
        items.first { $0.name == name }?.value ?? ""
    }
}
