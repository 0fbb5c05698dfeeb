/// A file's media type from its name's extension, as a sender labels what it sends
/// (informational: a receiver never acts on it).
public enum MediaType {
    private static let byExtension: [String: String] = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "bmp": "image/bmp", "svg": "image/svg+xml", "heic": "image/heic", "tif": "image/tiff", "tiff": "image/tiff",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar",
        "xz": "application/x-xz", "7z": "application/x-7z-compressed", "json": "application/json",
        "txt": "text/plain", "md": "text/markdown", "csv": "text/csv", "html": "text/html", "htm": "text/html",
        "xml": "application/xml", "mp3": "audio/mpeg", "wav": "audio/wav", "ogg": "audio/ogg", "flac": "audio/flac",
        "mp4": "video/mp4", "mov": "video/quicktime", "mkv": "video/x-matroska", "webm": "video/webm",
        "doc": "application/msword", "odt": "application/vnd.oasis.opendocument.text",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ]

    /// The media type for a file name, or "" when its extension says nothing known.
    public static func guess(forName name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return byExtension[name[name.index(after: dot)...].lowercased()] ?? ""
    }
}
