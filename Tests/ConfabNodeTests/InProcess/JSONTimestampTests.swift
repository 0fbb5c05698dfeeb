import ConfabClient
import Foundation
import Testing

/// The times every JSON answer and event carries, written by hand: the same text
/// `ISO8601DateFormatter` writes, from 1900 to 2200, and read back to the millisecond.
@Suite struct JSONTimestampTests {
    static func reference(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    @Test(
        arguments: [
            0, 1, 999, -1, -86_400_000, 951_782_400_000, 951_868_799_999, 1_700_000_000_500, 4_102_444_800_000,
            -2_208_988_800_000, 7_258_118_399_999,
        ] as [Int64])
    func knownTimes(_ milliseconds: Int64) {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        #expect(JSONOutput.timestamp(date) == Self.reference(date))
    }

    @Test func aMillisecondPastMidnightOnALeapDay() {
        #expect(JSONOutput.timestamp(Date(timeIntervalSince1970: 951_782_400.001)) == "2000-02-29T00:00:00.001Z")
        #expect(JSONOutput.timestamp(Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
    }

    @Test func randomTimesMatchTheFormatterAndReadBack() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let milliseconds = Int64.random(in: -2_208_988_800_000...7_258_118_399_999, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = JSONOutput.timestamp(date)
            #expect(text == Self.reference(date), "\(milliseconds)")
            let back = try JSONOutput.decoder().decode(Date.self, from: Data("\"\(text)\"".utf8))
            #expect(Int64((back.timeIntervalSince1970 * 1000).rounded()) == milliseconds)
        }
    }
}
