import NIOCore

/// Where beacons go on a given set of interfaces, and why an interface gets none
/// (Protocol.md §11.3). Pure: the same interfaces always give the same plan, so every rule
/// is tested on made-up interfaces and a change of the machine's networks is a change of
/// plan.
public struct BeaconPlan: Sendable, Equatable {
    /// The link-local multicast group IPv6 beacons go to and IPv6 receivers join: "ff12" is
    /// a transient group of link-local scope, so routers never forward it.
    public static let ipv6Group = "ff12::7460"

    public struct Target: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable { case broadcast, multicast }
        public var interface: String
        public var interfaceIndex: UInt32
        public var kind: Kind
        /// The IPv4 broadcast address, or the IPv6 group scoped to the interface.
        public var address: SocketAddress

        public var description: String {
            switch kind {
            case .broadcast: "\(address.ipAddress ?? "?"):\(address.port ?? 0) on \(interface)"
            case .multicast: "[\(address.ipAddress ?? "?")%\(interface)]:\(address.port ?? 0)"
            }
        }
    }

    /// An interface that is up but gets no beacon, and why.
    public struct Skipped: Sendable, Equatable, CustomStringConvertible {
        public var interface: String
        public var reason: String
        public var description: String { "\(interface): \(reason)" }
    }

    public var targets: [Target] = []
    public var skipped: [Skipped] = []

    public var addresses: [SocketAddress] { targets.map(\.address) }

    public init(targets: [Target] = [], skipped: [Skipped] = []) {
        self.targets = targets
        self.skipped = skipped
    }

    /// IPv4: each address's broadcast address — the one the interface reports, or, where it
    /// reports none or its own address (an address added without `broadcast`), the one its
    /// netmask gives; /31 and /32 have none. IPv6: the group, once per interface with a
    /// link-local address. Never loopback, a down interface or a point-to-point link.
    public static func make(interfaces: [NetworkInterface], port: Int) -> BeaconPlan {
        var plan = BeaconPlan()
        for interface in interfaces where interface.isUp && !interface.isLoopback {
            if interface.isPointToPoint {
                plan.skipped.append(
                    .init(interface: interface.name, reason: "point-to-point link: nothing to broadcast to"))
                continue
            }
            for assignment in interface.ipv4 where !assignment.isLoopback {
                guard assignment.prefixLength <= 30 else {
                    plan.skipped.append(
                        .init(
                            interface: interface.name,
                            reason: "\(assignment.description) has no broadcast address (a /31 or /32)"))
                    continue
                }
                let computed = assignment.address | ~assignment.netmask
                let reported = assignment.broadcast.flatMap { $0 == 0 || $0 == assignment.address ? nil : $0 }
                let broadcast = reported ?? computed
                guard let address = try? SocketAddress(ipAddress: NetworkInterface.IPv4.dotted(broadcast), port: port)
                else {
                    continue
                }
                if !plan.targets.contains(where: { $0.address == address }) {
                    plan.targets.append(
                        .init(
                            interface: interface.name, interfaceIndex: interface.index, kind: .broadcast,
                            address: address))
                }
            }
            if interface.ipv6.contains(where: \.isLinkLocal) {
                guard interface.supportsMulticast else {
                    plan.skipped.append(.init(interface: interface.name, reason: "IPv6 without multicast"))
                    continue
                }
                if let group = scopedGroup(port: port, interfaceIndex: interface.index) {
                    plan.targets.append(
                        .init(
                            interface: interface.name, interfaceIndex: interface.index, kind: .multicast, address: group
                        ))
                }
            } else if interface.ipv4.isEmpty {
                plan.skipped.append(
                    .init(interface: interface.name, reason: "no IPv4 address and no IPv6 link-local address"))
            }
        }
        return plan
    }

    /// The IPv6 group on one interface: the scope id picks the link it is sent on.
    static func scopedGroup(port: Int, interfaceIndex: UInt32) -> SocketAddress? {
        guard case .v6(let group)? = try? SocketAddress(ipAddress: ipv6Group, port: port) else { return nil }
        var raw = group.address
        raw.sin6_scope_id = interfaceIndex
        return SocketAddress(raw, host: ipv6Group)
    }
}
