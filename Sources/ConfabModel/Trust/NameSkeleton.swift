import Foundation

/// What a name looks like, reduced to a canonical form: two names with the same skeleton
/// could be taken for each other on screen, so they count as the same name wherever a
/// name is matched or checked for conflicts (Protocol.md §8.1). It is never shown.
public enum NameSkeleton {
    /// NFKC (fullwidth letters, ligatures, compatibility forms), case folding, no invisible
    /// characters, one space between words, and look-alike letters of other scripts
    /// mapped to the Latin letter they pass for.
    public static func of(_ name: String) -> String {
        let folded = name.precomposedStringWithCompatibilityMapping
            .folding(options: .caseInsensitive, locale: nil)
            .precomposedStringWithCompatibilityMapping
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in folded.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !out.isEmpty
                continue
            }
            if isInvisible(scalar) { continue }
            if pendingSpace {
                out.append(" ")
                pendingSpace = false
            }
            out.append(confusables[scalar] ?? scalar)
        }
        return String(out)
    }

    /// Characters that draw nothing (zero-width spaces and joiners, bidi controls, variation
    /// selectors, fillers) or should never be in a name (controls): a name with them looks
    /// the same as the name without.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format: return true
        default: return scalar.properties.isDefaultIgnorableCodePoint
        }
    }

    /// Cyrillic, Greek and Latin letters that pass for another Latin letter, after case
    /// folding (so each capital is covered by its small letter: Α → α → a). Deliberately
    /// small: the common lookalikes used to impersonate Latin names. A mapping too many only
    /// makes two names count as one, which is the safe side.
    static let confusables: [Unicode.Scalar: Unicode.Scalar] = [
        // Cyrillic
        "\u{0430}": "a", "\u{0432}": "b", "\u{0435}": "e", "\u{043A}": "k", "\u{043C}": "m", "\u{043D}": "h",
        "\u{043E}": "o", "\u{0440}": "p", "\u{0441}": "c", "\u{0442}": "t", "\u{0443}": "y", "\u{0445}": "x",
        "\u{0455}": "s", "\u{0456}": "i", "\u{0458}": "j", "\u{04BB}": "h", "\u{04AF}": "y", "\u{04CF}": "l",
        "\u{0501}": "d", "\u{051B}": "q", "\u{051D}": "w",
        // Greek
        "\u{03B1}": "a", "\u{03B2}": "b", "\u{03B5}": "e", "\u{03B6}": "z", "\u{03B7}": "h", "\u{03B9}": "i",
        "\u{03BA}": "k", "\u{03BC}": "m", "\u{03BD}": "n", "\u{03BF}": "o", "\u{03C1}": "p", "\u{03C4}": "t",
        "\u{03C5}": "y", "\u{03C7}": "x", "\u{03F2}": "c", "\u{03F3}": "j",
        // Latin letters that pass for others
        "\u{0131}": "i", "\u{0237}": "j", "\u{0251}": "a", "\u{0261}": "g", "\u{0269}": "i",
        // Armenian
        "\u{0585}": "o",
    ]
}
