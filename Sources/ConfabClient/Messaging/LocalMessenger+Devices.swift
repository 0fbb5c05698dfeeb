import ConfabModel
import ConfabStore

/// The handlers of my person's machines: the list, and removing one (Protocol.md §20.13).
extension LocalMessenger {
    public func perform(_ operation: Operations.Devices) async throws -> DeviceListing {
        try DeviceListing.read(from: local)
    }

    public func perform(_ operation: Operations.RemoveDevice) async throws -> DeviceRemoved {
        let store = local.store
        let list = try store.deviceList(of: store.myPerson)
        let device = operation.device
        let name =
            list.entries.lazy.compactMap { entry -> String? in
                guard case .add(let key, let name) = entry.change, key == device else { return nil }
                return name
            }.first ?? device.shortHex
        if let refusal = try Operations.RemoveDevice.refusal(on: local, removing: name) { throw refusal }
        guard device != list.person else {
            throw StoreError.invalidInput("\(name) is this machine, which holds the person key: it is never removed")
        }
        guard list.listed.contains(where: { $0.key == device }) else {
            throw StoreError.invalidInput(
                list.removal(of: device) != nil
                    ? "\(name) was removed already"
                    : "no device \(device.shortHex) is in your devices (see \"confab devices\")")
        }
        let outcome: DeviceRemovalOutcome
        do {
            outcome = try store.removeDevice(device)
        } catch let error as DeviceListError {
            throw StoreError.invalidInput("could not remove \(name): \(error)")
        }
        // Peers hear of the removal now, then take the rekeys (the personal conversation's too).
        var written = Set(outcome.rekeyed)
        if let personal = try store.personalConversation() { written.insert(personal) }
        try await node?.ownDeviceListChanged(wrote: written)
        node?.emit(.changed(nil))
        return DeviceRemoved(id: device, name: name, rekeyed: outcome.rekeyed, notRekeyed: outcome.notRekeyed)
    }
}
