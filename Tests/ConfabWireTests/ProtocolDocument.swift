import ConfabCrypto
import Foundation
import Testing

/// Protocol.md, read by the tests that check the vectors written in it against the code:
/// a vector that drifts from the bytes fails them.
enum ProtocolDocument {
    /// The whole document, at the repository's root.
    static func text() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("Protocol.md"), encoding: .utf8)
    }

    /// §16, the test vectors.
    static func vectors() throws -> String {
        let text = try text()
        let start = try #require(text.range(of: "## 16. Test vectors"))
        let end = try #require(text.range(of: "## 17. Files"))
        return String(text[start.lowerBound..<end.lowerBound])
    }

    /// §20, devices, to the end of the document.
    static func devices() throws -> String {
        let text = try text()
        let start = try #require(text.range(of: "## 20. Devices"))
        return String(text[start.lowerBound...])
    }

    /// The bytes in the first code span after `lead`, read as hex (spaces ignored).
    static func codeSpan(after lead: String) throws -> [UInt8] {
        let text = try text()
        let start = try #require(text.range(of: lead), "Protocol.md no longer says \"\(lead)\"")
        let rest = text[start.upperBound...]
        let open = try #require(rest.firstIndex(of: "`"))
        let body = rest[rest.index(after: open)...]
        let close = try #require(body.firstIndex(of: "`"))
        let hex = String(body[..<close].filter { !$0.isWhitespace })
        return try #require(Hex.decode(hex), "not hex: \(hex)")
    }

    /// Every `name = hex` line of `section`, with its continuation lines (indented hex),
    /// and every `name = formula` followed by an indented `= hex` (the formula's value).
    static func fields(_ section: String) -> [(name: String, bytes: [UInt8])] {
        var fields: [(name: String, hex: String)] = []
        var open = false
        var formula: String?
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let equals = line.firstIndex(of: "="), !line.hasPrefix(" ") {
                let name = line[..<equals].trimmingCharacters(in: .whitespaces)
                let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                open = !value.isEmpty && value.allSatisfy(\.isHexDigit)
                formula = open ? nil : name
                if open { fields.append((name, value)) }
            } else if line.hasPrefix(" "), trimmed.hasPrefix("="), let name = formula {
                let value = trimmed.dropFirst().trimmingCharacters(in: .whitespaces)
                open = !value.isEmpty && value.allSatisfy(\.isHexDigit)
                if open { fields.append((name, value)) }
                formula = nil
            } else if open, line.hasPrefix(" "), !trimmed.isEmpty, trimmed.allSatisfy(\.isHexDigit) {
                fields[fields.count - 1].hex += trimmed
            } else {
                open = false
                formula = nil
            }
        }
        return fields.compactMap { field in Hex.decode(field.hex).map { (field.name, $0) } }
    }

    /// The bytes §16 gives under `name` (the first such field).
    static func vector(_ name: String) throws -> [UInt8] {
        try #require(fields(try vectors()).first { $0.name == name }?.bytes, "Protocol.md §16 has no \(name)")
    }
}
