import ConfabModel

extension ChatState {
    /// The device list: ↑/↓ (j/k), PgUp/PgDn, Home/End select; `r`, Delete or Backspace asks
    /// before removing the selected machine; Esc or `q` closes. Other keys do nothing, so a
    /// stray letter neither closes the box nor removes anything.
    mutating func handleDevicesKey(_ key: Key, _ panel: inout DevicesPanel) -> [ChatEffect] {
        let rows = DevicesOverlay.deviceRows(screenHeight: height, panel: panel)
        switch key {
        case .escape, .character("q"): overlay = nil
        case .up, .character("k"): panel.select(panel.selected - 1, rows: rows)
        case .down, .character("j"): panel.select(panel.selected + 1, rows: rows)
        case .pageUp: panel.select(panel.selected - rows, rows: rows)
        case .pageDown: panel.select(panel.selected + rows, rows: rows)
        case .home: panel.select(0, rows: rows)
        case .end: panel.select(panel.listing.devices.count - 1, rows: rows)
        case .character("r"), .delete, .backspace:
            if let refusal = panel.refusal {
                notice = refusal
            } else if let device = panel.selectedDevice {
                // The same box as `/devices remove NAME`: only "y" removes.
                overlay = .confirmRemoveDevice(device, from: panel)
            }
        default: break
        }
        return []
    }
}
