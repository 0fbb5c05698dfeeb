import ConfabClient
import ConfabModel
import Foundation

@testable import ConfabTUI

extension Fixtures {
    /// One of my person's machines as `/devices` lists it.
    static func device(
        _ id: NodeID, _ name: String?, lastSeen: Date? = nil, thisDevice: Bool = false, personKey: Bool = false
    ) -> DeviceListing.Device {
        DeviceListing.Device(
            id: id, name: name, fingerprint: id.fingerprint, addedAt: personKey ? nil : now, lastSeen: lastSeen,
            thisDevice: thisDevice, personKey: personKey)
    }

    /// The device box, or nil when another overlay (or none) is open.
    static func devicesPanel(_ state: ChatState) -> DevicesPanel? {
        guard case .devices(let panel) = state.overlay else { return nil }
        return panel
    }
}
