import Foundation

/// Timestamps the way messengers show them: "10:30 AM" today, "Yesterday", a weekday
/// within the last week, "Oct 15" this year, "Oct 15, 2024" before.
public struct SmartTimestamp: Sendable {
    public var calendar: Calendar
    public var locale: Locale

    public init(calendar: Calendar = .current, locale: Locale = Locale(identifier: "en_US_POSIX")) {
        self.calendar = calendar
        self.locale = locale
    }

    /// For a conversation row or a message: short, relative to `now`.
    public func short(_ date: Date, now: Date = Date()) -> String {
        let days = dayDistance(from: date, to: now)
        if days <= 0 && calendar.isDate(date, inSameDayAs: now) { return format(date, "h:mm a") }
        if days == 1 { return "Yesterday" }
        if days > 1 && days < 7 { return format(date, "EEEE") }
        if calendar.component(.year, from: date) == calendar.component(.year, from: now) {
            return format(date, "MMM d")
        }
        return format(date, "MMM d, yyyy")
    }

    /// For a date separator between messages: "Today", "Yesterday", "Monday, Oct 15".
    public func separator(_ date: Date, now: Date = Date()) -> String {
        let days = dayDistance(from: date, to: now)
        if days == 0 { return "Today" }
        if days == 1 { return "Yesterday" }
        if calendar.component(.year, from: date) == calendar.component(.year, from: now) {
            return format(date, "EEEE, MMM d")
        }
        return format(date, "EEEE, MMM d, yyyy")
    }

    /// The time of day alone, for a message bubble: "10:30 AM".
    public func time(_ date: Date) -> String { format(date, "h:mm a") }

    private func dayDistance(from date: Date, to now: Date) -> Int {
        let start = calendar.startOfDay(for: date)
        let end = calendar.startOfDay(for: now)
        return calendar.dateComponents([.day], from: start, to: end).day ?? 0
    }

    private func format(_ date: Date, _ pattern: String) -> String {
        DateFormatterCache.shared.string(from: date, pattern: pattern, calendar: calendar, locale: locale)
    }
}
