import ConfabClient
import ConfabModel

/// What a device command answers (`ChatUpdate.devices`).
public enum DeviceAnswer: Equatable, Sendable {
    /// `/devices`: my person's machines; `online` the ones in session with the node now.
    case listing(DeviceListing, online: Set<NodeID>)
    /// The device `/devices remove NAME` names, to ask about before removing it.
    case toRemove(DeviceListing.Device)
    case removed(DeviceRemoved)
}
