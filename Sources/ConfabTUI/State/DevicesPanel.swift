import ConfabClient
import ConfabModel

/// `/devices` in the chat, or `D` on the list: my person's machines, one a line. On the
/// machine that holds the person key, `r` asks before removing the selected one.
struct DevicesPanel: Sendable, Equatable {
    var listing: DeviceListing
    /// The machines in session with the node when the list was read.
    var online: Set<NodeID>
    var selected = 0
    /// The first device line shown, when they do not all fit on the screen.
    var top = 0

    var selectedDevice: DeviceListing.Device? {
        listing.devices.indices.contains(selected) ? listing.devices[selected] : nil
    }

    /// Whether `r` can remove anything here: only the person key removes (Protocol.md §20),
    /// and never itself.
    var offersRemoving: Bool { listing.canRemove && listing.devices.contains { !$0.personKey } }

    /// Why the selected machine cannot be removed from here, or nil when it can.
    var refusal: String? {
        guard let device = selectedDevice else { return "No device selected" }
        if !listing.canRemove {
            let holder = listing.devices.first(where: \.personKey).map(DeviceText.name) ?? "your first machine"
            return "Only the machine that holds your person key (\(holder)) removes devices"
        }
        if device.personKey { return "This machine holds your person key: it cannot remove itself" }
        return nil
    }

    /// Moves the selection to `index` (clamped) and scrolls so it shows among `rows` lines.
    mutating func select(_ index: Int, rows: Int) {
        selected = min(max(0, index), max(0, listing.devices.count - 1))
        let rows = max(1, rows)
        if selected < top { top = selected }
        if selected >= top + rows { top = selected - rows + 1 }
        top = min(top, max(0, listing.devices.count - rows))
    }

    /// A newer reading of the list, keeping the selection on the same machine when it is still there.
    mutating func refresh(_ newer: DeviceListing, online: Set<NodeID>, rows: Int) {
        let kept = selectedDevice?.id
        listing = newer
        self.online = online
        select(newer.devices.firstIndex { $0.id == kept } ?? selected, rows: rows)
    }
}
