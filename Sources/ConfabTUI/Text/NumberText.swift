/// Counts for people: "1,234". Written by hand rather than with a locale-aware formatter
/// so the screen is the same on every machine and in tests.
enum NumberText {
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return value < 0 ? "-" + out : out
    }
}
