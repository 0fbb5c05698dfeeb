import Foundation

/// Sizes as operators write them: `500MB`, `2GiB`, `1048576`.
public enum ByteSize {
    /// Parses a size; nil when it is not one. Decimal units (KB, MB, GB, TB) are powers of
    /// 1000, binary ones (KiB, MiB, GiB, TiB) powers of 1024; a bare number is bytes.
    public static func parse(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        guard let number = Double(digits), number >= 0 else { return nil }
        let multipliers: [String: Double] = [
            "": 1, "b": 1, "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
            "kib": 1024, "mib": 1_048_576, "gib": 1_073_741_824, "tib": 1_099_511_627_776,
        ]
        guard let multiplier = multipliers[unit] else { return nil }
        let bytes = number * multiplier
        guard bytes < Double(Int.max) else { return nil }
        return Int(bytes)
    }

    /// `1.5 MB`, for logs.
    public static func format(_ bytes: Int) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : "\((value * 10).rounded() / 10) \(units[unit])"
    }
}
