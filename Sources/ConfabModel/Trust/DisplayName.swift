/// The rules every display name follows, wherever it is set: `init`, the first run's
/// prompt, `peers add`, and a peer's `Hello` (Protocol.md §8.1).
public enum DisplayName {
    /// A run of this many hex digits reads as a key, a fingerprint or a key prefix (the
    /// short form Confab prints is 8).
    public static let keyLikeHexDigits = 8

    /// A name as stored and shown: one line, without controls, escape sequences or format
    /// characters (zero-width and bidi ones), whitespace runs as one space, trimmed. What is
    /// stored is then what is seen, and what a person can type back.
    public static func cleaned(_ name: String) -> String {
        let visible = TextSanitizer.line(name).unicodeScalars.filter {
            $0.properties.generalCategory != .format
        }
        return String(String.UnicodeScalarView(visible)).split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
    }

    /// Whether `name` is exactly as a name is stored and may be chosen (Protocol.md §8.1,
    /// §20.3): 1 to 64 bytes of UTF-8, unchanged by `cleaned`, and not like a key. Names that
    /// travel signed (a device list's, a name setting's) must be so, so what is signed is
    /// what is shown.
    public static func isStoredForm(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= Limits.maxNameBytes && cleaned(name) == name && !looksLikeKey(name)
    }

    /// Whether the name could be taken for key text: only hex digits (spaces aside), at
    /// least 8 of them, or a name ending in hex digits in brackets, like the `bob (1a2b3c4d)`
    /// Confab gives a second key that claims a name. Judged on the skeleton, so fullwidth
    /// or look-alike digits and letters count too.
    public static func looksLikeKey(_ name: String) -> Bool {
        let skeleton = NameSkeleton.of(name)
        return isHexRun(Substring(skeleton)) || bracketedHexSuffix(of: skeleton) != nil
    }

    /// Why a person cannot choose this name, or nil: for names that look like keys, which
    /// the resolver would never take as a name, and which could make another key look like
    /// this one in a list.
    public static func keyLikeRefusal(_ name: String) -> String? {
        let skeleton = NameSkeleton.of(name)
        if isHexRun(Substring(skeleton)) {
            return "the name \"\(cleaned(name))\" could be taken for a key or key prefix (it is only hex digits); "
                + "choose a name with other letters"
        }
        if bracketedHexSuffix(of: skeleton) != nil {
            return "the name \"\(cleaned(name))\" could be taken for a key: it ends like the \"bob (1a2b3c4d)\" "
                + "Confab gives a second key that claims a name; choose a name without hex digits in brackets"
        }
        return nil
    }

    /// What a key whose claimed name looks like a key is called here, before its own short
    /// key is added: the claim without the bracketed hex, or "peer" when nothing but hex is
    /// left.
    public static func base(ofKeyLike name: String) -> String {
        var base = cleaned(name)
        if let open = base.lastIndex(of: "("), bracketedHexSuffix(of: NameSkeleton.of(String(base[open...]))) != nil {
            base = String(base[..<open]).trimmingWhitespace
        }
        if base.isEmpty || looksLikeKey(base) { return "peer" }
        return base
    }

    private static func isHexRun(_ text: Substring) -> Bool {
        let digits = text.unicodeScalars.filter { $0 != " " }
        return digits.count >= keyLikeHexDigits && digits.allSatisfy(isHexDigit)
    }

    /// The hex inside a final "(…)", when it is a hex run.
    private static func bracketedHexSuffix(of skeleton: String) -> Substring? {
        guard skeleton.hasSuffix(")"), let open = skeleton.lastIndex(of: "(") else { return nil }
        let inside = skeleton[skeleton.index(after: open)..<skeleton.index(before: skeleton.endIndex)]
        return isHexRun(inside) ? inside : nil
    }

    private static func isHexDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar) || ("a"..."f").contains(scalar)
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
