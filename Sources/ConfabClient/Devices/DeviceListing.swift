import ConfabModel
import ConfabStore
import Foundation

/// The answer of `devices` (Protocol.md §13): my person's machines as the device list held
/// here has them, the person's own key first, then the others in the order they were linked.
public struct DeviceListing: Sendable, Equatable, Codable {
    /// One machine of my person.
    public struct Device: Sendable, Equatable, Codable {
        public let id: NodeID
        /// As its list entry names it; the person's own machine, which the list does not name,
        /// goes by the person's name. Another machine chose it: untrusted text.
        public let name: String?
        public let fingerprint: String
        /// When the list entry that added it was signed (as its signer said); nil for the
        /// person key, which no entry adds.
        public let addedAt: Date?
        /// When this machine last had a session with it; nil for this machine itself and for
        /// one never met.
        public let lastSeen: Date?
        public let thisDevice: Bool
        public let personKey: Bool

        public init(
            id: NodeID, name: String?, fingerprint: String, addedAt: Date?, lastSeen: Date?, thisDevice: Bool,
            personKey: Bool
        ) {
            self.id = id
            self.name = name
            self.fingerprint = fingerprint
            self.addedAt = addedAt
            self.lastSeen = lastSeen
            self.thisDevice = thisDevice
            self.personKey = personKey
        }
    }

    /// That my person's list removed this machine (Protocol.md §20.13).
    public struct Removal: Sendable, Equatable, Codable {
        public let removedAt: Date
        /// What to tell the person, and how to use Confab here again.
        public let message: String

        public init(removedAt: Date, message: String) {
            self.removedAt = removedAt
            self.message = message
        }
    }

    public let person: NodeID
    /// Whether this machine holds the person key, and so may remove the others.
    public let canRemove: Bool
    public let devices: [Device]
    public let removed: Removal?

    public init(person: NodeID, canRemove: Bool, devices: [Device], removed: Removal?) {
        self.person = person
        self.canRemove = canRemove
        self.devices = devices
        self.removed = removed
    }
}

extension DeviceListing {
    /// What the store holds: the list of my person, its names and dates, and when this
    /// machine last met each of the others (a device is a peer like any other here).
    public static func read(from local: Profile) throws -> DeviceListing {
        let store = local.store
        let person = store.myPerson
        let list = try store.deviceList(of: person)
        let personName = try local.displayName()
        let devices = try list.devices.map { device in
            let isPerson = device.key == person
            let isMe = device.key == store.me
            return Device(
                id: device.key, name: device.name ?? (isPerson ? personName : nil),
                fingerprint: device.key.fingerprint,
                addedAt: isPerson
                    ? nil
                    : Date(timeIntervalSince1970: TimeInterval(list.entries[Int(device.addedAt) - 1].timestamp) / 1000),
                lastSeen: isMe ? nil : try store.peer(device.key)?.lastSeenAt, thisDevice: isMe, personKey: isPerson)
        }
        let removal = try store.myDeviceRemoval().map { Removal(removedAt: $0.removedAt, message: $0.message) }
        return DeviceListing(person: person, canRemove: person == store.me, devices: devices, removed: removal)
    }
}
