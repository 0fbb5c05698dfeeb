import ConfabModel
import ConfabStore

extension Operations {
    /// My person's machines, from the device list held here (Protocol.md §20): each with its
    /// name, key, when it was linked and when this machine last had a session with it.
    public struct Devices: ReadOperation {
        public typealias Answer = DeviceListing
        public static let method = OperationMethod.devices

        public init() {}

        public func perform(on messenger: some Messenger) async throws -> DeviceListing {
            try await messenger.perform(self)
        }
    }

    /// Removes one of my person's machines and rekeys my conversations without it
    /// (Protocol.md §20.13). Only the machine that holds the person key can; nothing asks
    /// for confirmation here, a front end asks before.
    public struct RemoveDevice: ConfabOperation {
        public typealias Answer = DeviceRemoved
        public static let method = OperationMethod.removeDevice
        public var device: NodeID

        public init(_ device: NodeID) { self.device = device }

        public func perform(on messenger: some Messenger) async throws -> DeviceRemoved {
            try await messenger.perform(self)
        }

        /// Why this machine cannot remove devices, or nil when it can: a linked device holds
        /// no person key (Protocol.md §20.13), so the words name the machine that does and
        /// the command to run there for `name`.
        public static func refusal(on local: Profile, removing name: String) throws -> StoreError? {
            guard let person = try local.store.linkedPerson() else { return nil }
            return refusal(person: person, personName: try local.displayName(), removing: name)
        }

        /// The same words from what a listing says, for a front end that reads through a
        /// messenger: `person` and its name as `Operations.Devices` answers them.
        public static func refusal(person: NodeID, personName: String, removing name: String) -> StoreError {
            StoreError.invalidInput(
                "only the machine that holds \(personName)'s person key (\(person.shortHex), the first "
                    + "device) can remove devices; run \"confab devices remove \(name)\" there")
        }
    }
}
