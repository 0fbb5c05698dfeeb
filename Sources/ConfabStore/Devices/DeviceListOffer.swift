import ConfabModel

/// What became of a device list offered to the store (Protocol.md §20.7).
public enum DeviceListOffer: Sendable, Equatable {
    /// The held list is the same.
    case same
    /// The received list extended the held one and is now held.
    case taken(DeviceList)
    /// The held list extends the received one, and stays.
    case kept
    /// The lists differ at a seq: the held list stays, and the fork is recorded.
    case fork(DeviceListFork)
}
