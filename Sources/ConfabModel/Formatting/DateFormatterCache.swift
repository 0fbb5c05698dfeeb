import Foundation
import Synchronization

/// Date formatters are costly to make (an ICU formatter each time: about 100 µs) and a
/// chat frame formats dozens of times, so they are made once per pattern, time zone and
/// locale. A formatter is not safe to use from two threads at once: the lock covers use.
final class DateFormatterCache: Sendable {
    static let shared = DateFormatterCache()

    private struct Key: Hashable {
        let pattern: String
        let timeZone: TimeZone
        let locale: Locale
        let calendar: Calendar.Identifier
    }

    private let formatters = Mutex<[Key: DateFormatter]>([:])

    func string(from date: Date, pattern: String, calendar: Calendar, locale: Locale) -> String {
        let key = Key(pattern: pattern, timeZone: calendar.timeZone, locale: locale, calendar: calendar.identifier)
        return formatters.withLock { formatters in
            if let formatter = formatters[key] { return formatter.string(from: date) }
            let formatter = DateFormatter()
            formatter.calendar = calendar
            formatter.locale = locale
            formatter.timeZone = calendar.timeZone
            formatter.dateFormat = pattern
            formatters[key] = formatter
            return formatter.string(from: date)
        }
    }
}
