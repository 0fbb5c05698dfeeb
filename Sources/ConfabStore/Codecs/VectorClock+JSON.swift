import ConfabCrypto
import ConfabModel
import Foundation

extension VectorClock {
    /// Clocks are kept as small JSON objects in the store, readable with the sqlite3 shell.
    /// Written by hand: every stored entry writes one (its head's frontier), and the form
    /// is fixed and trivial (hex keys, decimal values, sorted), so Foundation's general
    /// encoder is not worth its cost here. The same bytes JSONEncoder with sorted keys
    /// would produce (ClockColumnTests holds it to that).
    var json: String {
        let entries = sortedEntries
        var out: [UInt8] = []
        out.reserveCapacity(2 + entries.count * 90)
        out.append(UInt8(ascii: "{"))
        for (index, entry) in entries.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            Hex.append(entry.author.bytes, to: &out)
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: String(entry.seq).utf8)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Reads what `json` writes on a fast path; anything else (a value edited by hand, a
    /// damaged one) goes through Foundation's decoder, which takes any JSON spelling and
    /// reports errors properly.
    init(json: String) throws {
        if let clock = Self.parseCompact(json) {
            self = clock
        } else {
            self = try JSONDecoder().decode(VectorClock.self, from: Data(json.utf8))
        }
    }

    private static func parseCompact(_ json: String) -> VectorClock? {
        let bytes = Array(json.utf8)
        guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else { return nil }
        var clock = VectorClock()
        var index = 1
        let end = bytes.count - 1
        while index < end {
            // "<64 hex>":<digits>[,]
            guard bytes[index] == UInt8(ascii: "\""), index + 66 < bytes.count, bytes[index + 65] == UInt8(ascii: "\""),
                bytes[index + 66] == UInt8(ascii: ":")
            else { return nil }
            var key = [UInt8](repeating: 0, count: 32)
            for offset in 0..<32 {
                guard let high = Hex.value(bytes[index + 1 + 2 * offset]),
                    let low = Hex.value(bytes[index + 2 + 2 * offset])
                else { return nil }
                key[offset] = high << 4 | low
            }
            guard let author = NodeID(bytes: key) else { return nil }
            index += 67
            var seq: UInt64 = 0
            var digits = 0
            while index < end, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                let (times, o1) = seq.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
                guard !o1, !o2 else { return nil }
                seq = sum
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            clock[author] = seq
            if index < end {
                guard bytes[index] == UInt8(ascii: ","), index + 1 < end else { return nil }
                index += 1
            }
        }
        return clock
    }
}
