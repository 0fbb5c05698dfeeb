import ConfabModel
import Foundation

/// What every view needs besides the state: the moment to show times relative to, and
/// the calendar that decides where days begin.
struct RenderContext {
    let now: Date
    let calendar: Calendar
    /// Colours stripped from the finished frame when false; blocks that are marked by a
    /// background colour alone (badges, the new-messages indicator) switch to reverse.
    let colors: Bool

    var timestamps: SmartTimestamp { SmartTimestamp(calendar: calendar) }

    var badge: TextStyle { colors ? Palette.unreadBadge : Palette.unreadBadgeMono }
    var indicator: TextStyle { colors ? Palette.indicator : Palette.indicatorMono }
}
