import ConfabModel
import Foundation

/// A peer's file name in `Content-Disposition`: made safe as a file name (no folders, no
/// control characters), then an ASCII fallback with nothing that could end the quoted
/// string, and the exact name percent-encoded (RFC 6266, RFC 8187).
enum DownloadName {
    static func disposition(_ name: String, inline: Bool) -> String {
        let safe = SafeFileName.component(name)
        let fallback = String(
            safe.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && scalar.value >= 0x20 && scalar.value != 0x7F && scalar != "\"" && scalar != "\\"
                    && scalar != ";" ? Character(scalar) : "_"
            })
        let allowed = CharacterSet.alphanumerics.intersection(
            CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127))
        )
        .union(CharacterSet(charactersIn: "!#$&+-.^_`|~"))
        let encoded = safe.addingPercentEncoding(withAllowedCharacters: allowed) ?? fallback
        return "\(inline ? "inline" : "attachment"); filename=\"\(fallback)\"; filename*=UTF-8''\(encoded)"
    }
}
