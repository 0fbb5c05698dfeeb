import ConfabModel
import Testing

@testable import ConfabStore

/// A session with a device is offered what its person would be (Protocol.md §20.11, §12).
@Suite struct DeviceSharingTests {
    @Test func aLaptopIsOfferedAlicesConversationsUntilItIsRemoved() throws {
        let bob = try makeStore(Keys.bob)
        let (id, _) = try bob.createConversation(with: [Keys.alice.id], firstMessage: "hi alice", now: at(1))
        let (other, _) = try bob.createConversation(with: [Keys.carol.id], firstMessage: "hi carol", now: at(1))
        let laptop = DeviceKeys.laptop.id
        #expect(try bob.sharing(id, with: laptop) == Sharing.none)
        let alice = try makeStore(Keys.alice)
        _ = try alice.addMyDevice(laptop, name: "laptop", now: at(2))
        _ = try bob.offerDeviceList(try alice.encodedDeviceList(of: Keys.alice.id), of: Keys.alice.id)
        #expect(try bob.sharing(id, with: laptop) == .everything)
        #expect(try bob.clocks(sharedWith: laptop).keys.sorted { $0.hex < $1.hex } == [id])
        #expect(try bob.sharing(other, with: laptop) == Sharing.none)
        _ = try alice.removeMyDevice(laptop, now: at(3))
        _ = try bob.offerDeviceList(try alice.encodedDeviceList(of: Keys.alice.id), of: Keys.alice.id)
        #expect(try bob.sharing(id, with: laptop) == Sharing.none)
        #expect(try bob.clocks(sharedWith: laptop).isEmpty)
    }
}
