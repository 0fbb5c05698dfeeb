import ConfabClient
import ConfabModel
import Foundation

/// How one of my machines reads in either chat. Its name was chosen on another machine and
/// came in its list entry: it is untrusted text, sanitized before it reaches the terminal.
enum DeviceText {
    /// Its name, or the start of its key when its entry names none.
    static func name(_ device: DeviceListing.Device) -> String {
        TextSanitizer.line(device.name ?? device.id.shortHex)
    }

    /// "1e2a 137c": the first two groups of the fingerprint, as the person compares them.
    static func shortFingerprint(_ id: NodeID) -> String {
        id.fingerprint.split(separator: " ").prefix(2).joined(separator: " ")
    }

    /// "this device", "online", "last seen Yesterday", or "not met yet".
    static func state(
        _ device: DeviceListing.Device, online: Set<NodeID>, timestamps: SmartTimestamp, now: Date = Date()
    ) -> String {
        if device.thisDevice { return "this device" }
        if online.contains(device.id) { return "online" }
        return device.lastSeen.map { "last seen \(timestamps.short($0, now: now))" } ?? "not met yet"
    }

    /// "Removed laptop; 3 conversations rekeyed", and the large groups only their admin rekeys.
    static func removed(_ outcome: DeviceRemoved) -> String {
        let name = TextSanitizer.line(outcome.name)
        let count = outcome.rekeyed.count
        var text = "Removed \(name); \(count) conversation\(count == 1 ? "" : "s") rekeyed"
        if !outcome.notRekeyed.isEmpty {
            let groups = outcome.notRekeyed.count
            text +=
                "; \(groups) large group\(groups == 1 ? "" : "s") can be rekeyed only by \(groups == 1 ? "its" : "their") "
                + "admin, and \(name) reads what is written there until then"
        }
        return text
    }
}
