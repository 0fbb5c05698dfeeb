import Hummingbird

/// A page the node writes itself (sign in, the first run): HTML with no script, never cached.
/// Whatever in `body` came from elsewhere is escaped by the caller (`StaticPage.escape`).
enum StaticPage {
    static func response(
        status: HTTPResponse.Status, title: String, head: String = "", bodyClass: String? = nil, body: String
    ) -> Response {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            \(head)<title>Confab — \(title)</title></head><body\(bodyClass.map { " class=\"\($0)\"" } ?? "")>
            \(body)</body></html>

            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
