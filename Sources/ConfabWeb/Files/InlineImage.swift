/// The raster types a browser may show inline, told by the file's own first bytes: a
/// sender's media type is a claim, and an SVG or an HTML page "image" could run script in the
/// app's origin. Everything else is served as a download.
enum InlineImage {
    static func mediaType(of start: [UInt8]) -> String? {
        if start.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if start.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if start.starts(with: Array("GIF87a".utf8)) || start.starts(with: Array("GIF89a".utf8)) { return "image/gif" }
        if start.count >= 12, start.starts(with: Array("RIFF".utf8)), Array(start[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        return nil
    }
}
