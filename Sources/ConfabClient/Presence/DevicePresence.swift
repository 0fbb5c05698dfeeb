import ConfabModel
import ConfabStore
import Foundation

/// One machine of a person, as `peers` shows it under the person (Protocol.md §20): the
/// person's own key (`name` nil until a rename in the list names it) or a device its list
/// names.
public struct DevicePresence: Sendable, Equatable, Codable {
    public let id: NodeID
    public let name: String?
    public var online: Bool
    public var connected: Bool
    public var lastSeen: Date?

    public init(id: NodeID, name: String?, online: Bool, connected: Bool, lastSeen: Date?) {
        self.id = id
        self.name = name
        self.online = online
        self.connected = connected
        self.lastSeen = lastSeen
    }
}

extension PeerPresence {
    /// The peers with each person's devices folded into the person: one entry per person,
    /// online when any of their machines is, with `devices` listing each. `owners` is the
    /// store's word on which keys are whose (`ConfabStore.deviceOwners`); a device whose
    /// person is not among the peers stays an entry of its own. `personNames`: the names
    /// lists give persons' own keys (`ConfabStore.personDeviceNames`).
    public static func foldingDevices(
        _ entries: [PeerPresence], owners: [NodeID: DeviceOwner], personNames: [NodeID: String] = [:]
    ) -> [PeerPresence] {
        guard !owners.isEmpty else { return entries }
        let byID = Dictionary(entries.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let devicesByPerson = Dictionary(grouping: owners.filter { byID[$0.value.person] != nil }) { $0.value.person }
        var result: [PeerPresence] = []
        for entry in entries {
            if let owner = owners[entry.id], byID[owner.person] != nil { continue }
            guard let devices = devicesByPerson[entry.id] else {
                result.append(entry)
                continue
            }
            var person = entry
            var listed = [
                DevicePresence(
                    id: entry.id, name: personNames[entry.id], online: entry.online, connected: entry.connected,
                    lastSeen: entry.lastSeen)
            ]
            for (key, owner) in devices.sorted(by: { ($0.value.name, $0.key) < ($1.value.name, $1.key) }) {
                let seen = byID[key]
                listed.append(
                    DevicePresence(
                        id: key, name: owner.name, online: seen?.online ?? false, connected: seen?.connected ?? false,
                        lastSeen: seen?.lastSeen))
                if let seen {
                    person.online = person.online || seen.online
                    person.connected = person.connected || seen.connected
                    if let last = seen.lastSeen, last > person.lastSeen ?? .distantPast { person.lastSeen = last }
                    if !entry.online, seen.online { person.address = seen.address }
                }
            }
            person.devices = listed
            result.append(person)
        }
        return result
    }
}

extension [PeerPresence] {
    /// Marks the machines of this node's own person (`mine`, this node's key among them).
    public func markingOwnDevices(_ mine: Set<NodeID>) -> [PeerPresence] {
        map { entry in
            var entry = entry
            if mine.contains(entry.id) { entry.ownDevice = true }
            return entry
        }
    }
}
