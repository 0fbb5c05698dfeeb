import ConfabClient
import ConfabModel
import Foundation

/// My person's machines in a box, one a line: name, the start of the fingerprint, where it
/// is ("this device", "online", "last seen …"), and the machine with the person key marked.
/// Longer than the screen, it scrolls with the selection.
struct DevicesOverlay {
    static let title = "Your devices"
    static let personKeyMark = "person key"
    static let footerRemoving = "↑/↓ select · r removes the selected machine (asks first) · Esc closes"
    static let footer = "↑/↓ select · Esc closes"

    let panel: DevicesPanel
    let screenWidth: Int
    let screenHeight: Int
    let context: RenderContext

    /// Device lines that fit between the border, a removal warning and the footer.
    static func deviceRows(screenHeight: Int, panel: DevicesPanel) -> Int {
        max(1, screenHeight - 3 - (panel.listing.removed == nil ? 0 : 1))
    }

    /// "1e2a 137c 9f3b 0a11": enough of the fingerprint to tell machines apart at a glance.
    static func fingerprint(_ id: NodeID) -> String {
        id.fingerprint.split(separator: " ").prefix(4).joined(separator: " ")
    }

    func box() -> OverlayBox {
        let devices = panel.listing.devices
        let names = devices.map(DeviceText.name)
        let nameWidth = min(24, names.map { DisplayWidth.of($0) }.max() ?? 0)
        let rows = Self.deviceRows(screenHeight: screenHeight, panel: panel)
        let first = min(max(0, panel.top), max(0, devices.count - rows))
        var content: [ScreenLine] = []
        // A removed machine is told first: nothing it writes is taken any more.
        if let removed = panel.listing.removed {
            content.append(ScreenLine("⚠ " + TextSanitizer.line(removed.message), Palette.warning))
        }
        for index in devices.indices.dropFirst(first).prefix(rows) {
            let device = devices[index]
            var line = ScreenLine(index == panel.selected ? "▸ " : "  ")
            line.append(DisplayWidth.pad(fitted(names[index], nameWidth), to: nameWidth), Palette.bold)
            line.append("  " + Self.fingerprint(device.id), Palette.dim)
            let state = DeviceText.state(
                device, online: panel.online, timestamps: context.timestamps, now: context.now)
            line.append("  " + state, state == "online" || device.thisDevice ? Palette.online : Palette.plain)
            if device.personKey { line.append(" · " + Self.personKeyMark, Palette.key) }
            content.append(index == panel.selected ? line.restyled { $0.reverse = true } : line)
        }
        let more = devices.count > rows ? " · \(first + 1)–\(min(devices.count, first + rows)) of \(devices.count)" : ""
        let footer = (panel.offersRemoving ? Self.footerRemoving : Self.footer) + more
        content.append(ScreenLine(footer, Palette.dim))
        let width = content.map(\.width).max() ?? 0
        return OverlayBox(
            title: Self.title, content: content, preferredWidth: width, screenWidth: screenWidth,
            screenHeight: screenHeight)
    }

    /// A name longer than its column ends in "…", so the other columns stay aligned.
    private func fitted(_ name: String, _ width: Int) -> String {
        guard DisplayWidth.of(name) > width else { return name }
        var kept = ""
        for character in name {
            guard DisplayWidth.of(kept) + DisplayWidth.of(character) < width else { break }
            kept.append(character)
        }
        return kept + "…"
    }
}
