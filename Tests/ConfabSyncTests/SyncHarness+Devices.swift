import ConfabModel
import ConfabStore
import ConfabWire

@testable import ConfabSync

extension SyncHarness {
    /// Alice's laptop, linked as `devices link` leaves it: her list names it and it holds
    /// that list as its person's. It gets no epoch keys here: what it reads comes by sync.
    func linkedLaptop(of alice: Node) throws -> Node {
        let laptop = try Node(name: "laptop", seed: 0x1A)
        add(laptop)
        _ = try alice.store.addMyDevice(laptop.id, name: "laptop")
        try laptop.store.takeLink(
            person: alice.id, list: alice.store.deviceList(of: alice.id).entries.map(DeviceEntryCodec.encode),
            displayName: "Alice", keys: [])
        return laptop
    }
}
