import ConfabModel
import Foundation
import Testing

/// A timestamp case: a moment given as UTC components and what it should read as.
struct TimestampCase: Sendable, CustomTestStringConvertible {
    let components: [Int]
    let expected: String
    var testDescription: String { "\(components) → \(expected)" }

    init(_ components: [Int], _ expected: String) {
        self.components = components
        self.expected = expected
    }
}

@Suite("SmartTimestamp")
struct SmartTimestampTests {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        calendar.locale = Locale(identifier: "en_US_POSIX")
        return calendar
    }()

    static func date(_ c: [Int], in calendar: Calendar = utc) -> Date {
        calendar.date(
            from: DateComponents(year: c[0], month: c[1], day: c[2], hour: c[3], minute: c.count > 4 ? c[4] : 0))!
    }

    /// Monday 22 October 2029, 14:00 UTC; 15 October 2029 is the Monday before.
    static let now = date([2029, 10, 22, 14, 0])
    let formatter = SmartTimestamp(calendar: utc, locale: Locale(identifier: "en_US_POSIX"))

    @Test(arguments: [
        TimestampCase([2029, 10, 22, 10, 30], "10:30 AM"),
        TimestampCase([2029, 10, 22, 0, 0], "12:00 AM"),
        TimestampCase([2029, 10, 22, 15, 45], "3:45 PM"),  // later today: a skewed sender clock
        TimestampCase([2029, 10, 21, 23, 59], "Yesterday"),
        TimestampCase([2029, 10, 21, 0, 1], "Yesterday"),
        TimestampCase([2029, 10, 20, 23, 0], "Saturday"),
        TimestampCase([2029, 10, 16, 9, 0], "Tuesday"),
        TimestampCase([2029, 10, 15, 9, 0], "Oct 15"),
        TimestampCase([2029, 1, 3, 9, 0], "Jan 3"),
        TimestampCase([2024, 10, 15, 9, 0], "Oct 15, 2024"),
        TimestampCase([2028, 12, 31, 23, 0], "Dec 31, 2028"),
        TimestampCase([2029, 10, 23, 9, 0], "Oct 23"),  // tomorrow: not "today", not relative
    ])
    func short(_ c: TimestampCase) {
        #expect(formatter.short(Self.date(c.components), now: Self.now) == c.expected)
    }

    @Test(arguments: [
        TimestampCase([2029, 10, 22, 0, 0], "Today"),
        TimestampCase([2029, 10, 22, 13, 59], "Today"),
        TimestampCase([2029, 10, 21, 12, 0], "Yesterday"),
        TimestampCase([2029, 10, 18, 12, 0], "Thursday, Oct 18"),
        TimestampCase([2029, 10, 15, 12, 0], "Monday, Oct 15"),
        TimestampCase([2024, 10, 15, 12, 0], "Tuesday, Oct 15, 2024"),
    ])
    func separator(_ c: TimestampCase) {
        #expect(formatter.separator(Self.date(c.components), now: Self.now) == c.expected)
    }

    @Test func weekAcrossNewYearStillShowsWeekday() {
        let now = Self.date([2029, 1, 2, 12, 0])
        #expect(formatter.short(Self.date([2028, 12, 30, 12, 0]), now: now) == "Saturday")
        #expect(formatter.short(Self.date([2028, 12, 20, 12, 0]), now: now) == "Dec 20, 2028")
        #expect(formatter.separator(Self.date([2028, 12, 30, 12, 0]), now: now) == "Saturday, Dec 30, 2028")
    }

    @Test func timeOfDay() {
        #expect(formatter.time(Self.date([2029, 10, 22, 10, 30])) == "10:30 AM")
        #expect(formatter.time(Self.date([2029, 10, 22, 23, 5])) == "11:05 PM")
    }

    /// Day boundaries are those of the calendar's time zone, not UTC: at 14:00 UTC it is
    /// already the next day at UTC+14.
    @Test func usesTheCalendarsTimeZone() {
        var kiritimati = Self.utc
        kiritimati.timeZone = TimeZone(secondsFromGMT: 14 * 3600)!
        let local = SmartTimestamp(calendar: kiritimati)
        let moment = Self.date([2029, 10, 22, 10, 30])
        #expect(local.short(moment, now: Self.now) == "12:30 AM")
        #expect(local.separator(Self.date([2029, 10, 22, 9, 0]), now: Self.now) == "Yesterday")
        #expect(formatter.separator(Self.date([2029, 10, 22, 9, 0]), now: Self.now) == "Today")
    }
}
