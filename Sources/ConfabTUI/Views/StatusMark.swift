import ConfabModel

/// How the delivery status of my messages is written: in full under a bubble, as marks
/// in a list row.
enum StatusMark {
    static func full(_ status: DeliveryStatus) -> String {
        switch status {
        case .sending: return "sending…"
        case .sent: return "sent ✓"
        case .delivered: return "delivered ✓✓"
        case .read: return "read ✓✓"
        }
    }

    static func short(_ status: DeliveryStatus) -> String {
        switch status {
        case .sending: return "…"
        case .sent: return "✓"
        case .delivered, .read: return "✓✓"
        }
    }

    static func style(_ status: DeliveryStatus) -> TextStyle {
        status == .read ? Palette.readMark : Palette.meta
    }
}
