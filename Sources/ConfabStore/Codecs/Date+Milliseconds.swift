import Foundation

/// Times are stored as integer milliseconds since 1970: exact, sortable, and the form
/// entries carry on the wire.
extension Date {
    var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
