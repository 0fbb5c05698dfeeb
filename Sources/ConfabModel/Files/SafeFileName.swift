/// Makes a file name or folder from the network safe to use on disk (Protocol.md §17.7).
/// A name is the sender's word, never a path: whatever it holds, what comes out is one
/// harmless component, and a folder is a relative path of such components.
public enum SafeFileName {
    public static let maxComponentBytes = 255

    /// Names that open a device rather than a file on Windows, whatever the extension.
    private static let deviceNames: Set<String> = {
        var names: Set<String> = ["CON", "PRN", "AUX", "NUL"]
        for digit in 1...9 {
            names.insert("COM\(digit)")
            names.insert("LPT\(digit)")
        }
        return names
    }()

    /// One safe path component.
    public static func component(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                scalars.append("_")
            default:
                scalars.append(["/", "\\", ":"].contains(scalar) ? "_" : scalar)
            }
        }
        var text = String(scalars)
        text = String(text.drop(while: \.isWhitespace))
        while let last = text.last, last.isWhitespace || last == "." { text.removeLast() }
        if text.isEmpty || text == "." || text == ".." { return "_" }
        let base =
            text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
        if deviceNames.contains(base.trimmingTrailingSpaces.uppercased()) { text = "_" + text }
        return fitted(text)
    }

    /// A folder as safe relative components (empty for none): split at `/`, empty parts
    /// (a leading `/`, `//`) dropped, each part made safe.
    public static func folder(_ folder: String) -> [String] {
        folder.split(separator: "/", omittingEmptySubsequences: true).map { component(String($0)) }
    }

    /// The relative path a received file is saved at: its folder's components, then its name.
    public static func relativePath(name: String, folder: String) -> [String] {
        self.folder(folder) + [component(name)]
    }

    /// Cut to `maxComponentBytes` of UTF-8 at a character boundary, keeping a short
    /// extension, so `very…long.tar.gz` still ends in `.gz`.
    private static func fitted(_ text: String) -> String {
        guard text.utf8.count > maxComponentBytes else { return text }
        var ext = ""
        if let dot = text.lastIndex(of: "."), dot != text.startIndex {
            let candidate = String(text[dot...])
            if candidate.utf8.count <= 16 { ext = candidate }
        }
        let budget = maxComponentBytes - ext.utf8.count
        var stem = ""
        var bytes = 0
        for character in text.dropLast(ext.count) {
            let width = character.utf8.count
            guard bytes + width <= budget else { break }
            stem.append(character)
            bytes += width
        }
        return stem + ext
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}
