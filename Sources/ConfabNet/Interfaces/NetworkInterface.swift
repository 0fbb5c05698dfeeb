#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One network interface as the kernel reports it at one moment: what discovery needs to
/// choose beacon targets, and what `confab doctor` shows. A plain value, so that a change
/// of the machine's networks is a change of `[NetworkInterface]`.
public struct NetworkInterface: Sendable, Hashable {
    /// An IPv4 address with its netmask and the broadcast address the kernel reports (nil
    /// when it reports none).
    public struct IPv4: Sendable, Hashable {
        /// Host byte order.
        public var address: UInt32
        public var netmask: UInt32
        public var broadcast: UInt32?

        public init(address: UInt32, netmask: UInt32, broadcast: UInt32? = nil) {
            self.address = address
            self.netmask = netmask
            self.broadcast = broadcast
        }

        public var prefixLength: Int { netmask.nonzeroBitCount }
        public var isLoopback: Bool { address >> 24 == 127 }
        public var description: String { "\(Self.dotted(address))/\(prefixLength)" }

        public static func dotted(_ address: UInt32) -> String {
            "\(address >> 24).\(address >> 16 & 0xff).\(address >> 8 & 0xff).\(address & 0xff)"
        }
    }

    /// An IPv6 address; link-local ones only make sense with the interface's index as scope.
    public struct IPv6: Sendable, Hashable {
        public var bytes: [UInt8]
        public var prefixLength: Int

        public init(bytes: [UInt8], prefixLength: Int) {
            self.bytes = bytes
            self.prefixLength = prefixLength
        }

        /// fe80::/10.
        public var isLinkLocal: Bool { bytes.count == 16 && bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 }
        public var isLoopback: Bool { bytes == [UInt8](repeating: 0, count: 15) + [1] }

        public var description: String {
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes.prefix(16)) }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return "?" }
            let characters = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            return "\(String(decoding: characters, as: UTF8.self))/\(prefixLength)"
        }
    }

    public var name: String
    /// The kernel's interface index: the scope of link-local addresses and multicast groups.
    public var index: UInt32
    public var isUp: Bool
    public var isLoopback: Bool
    public var supportsMulticast: Bool
    /// A point-to-point link (a VPN tunnel): it has a peer, not a LAN to broadcast on.
    public var isPointToPoint: Bool
    public var ipv4: [IPv4]
    public var ipv6: [IPv6]

    public init(
        name: String, index: UInt32, isUp: Bool = true, isLoopback: Bool = false, supportsMulticast: Bool = true,
        isPointToPoint: Bool = false, ipv4: [IPv4] = [], ipv6: [IPv6] = []
    ) {
        self.name = name
        self.index = index
        self.isUp = isUp
        self.isLoopback = isLoopback
        self.supportsMulticast = supportsMulticast
        self.isPointToPoint = isPointToPoint
        self.ipv4 = ipv4
        self.ipv6 = ipv6
    }

    /// The machine's interfaces now, in the kernel's order, each once with all its
    /// addresses. Empty if the kernel cannot be asked.
    public static func current() -> [NetworkInterface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var interfaces: [NetworkInterface] = []
        var cursor = list
        while let entry = cursor?.pointee {
            cursor = entry.ifa_next
            guard let namePointer = entry.ifa_name else { continue }
            let name = String(cString: namePointer)
            let flags = Int32(bitPattern: entry.ifa_flags)
            var position = interfaces.firstIndex { $0.name == name }
            if position == nil {
                interfaces.append(
                    NetworkInterface(
                        name: name, index: if_nametoindex(namePointer), isUp: flags & Int32(IFF_UP) != 0,
                        isLoopback: flags & Int32(IFF_LOOPBACK) != 0,
                        supportsMulticast: flags & Int32(IFF_MULTICAST) != 0,
                        isPointToPoint: flags & Int32(IFF_POINTOPOINT) != 0))
                position = interfaces.count - 1
            }
            guard let position, let address = entry.ifa_addr else { continue }
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                let mask = entry.ifa_netmask.map { ipv4Host($0) } ?? 0xffff_ffff
                // Linux keeps the broadcast address and a point-to-point peer in one field.
                let broadcast =
                    flags & Int32(IFF_BROADCAST) != 0 ? broadcastAddress(of: entry).map { ipv4Host($0) } : nil
                interfaces[position].ipv4.append(
                    IPv4(address: ipv4Host(address), netmask: mask, broadcast: broadcast))
            case AF_INET6:
                let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                }
                let prefix =
                    entry.ifa_netmask.map { mask in
                        mask.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                            withUnsafeBytes(of: pointer.pointee.sin6_addr) { $0.reduce(0) { $0 + $1.nonzeroBitCount } }
                        }
                    } ?? 128
                interfaces[position].ipv6.append(IPv6(bytes: bytes, prefixLength: prefix))
            default:
                continue
            }
        }
        return interfaces
    }

    private static func ipv4Host(_ address: UnsafeMutablePointer<sockaddr>) -> UInt32 {
        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
    }

    private static func broadcastAddress(of entry: ifaddrs) -> UnsafeMutablePointer<sockaddr>? {
        #if canImport(Darwin)
        return entry.ifa_dstaddr
        #else
        return entry.ifa_ifu.ifu_broadaddr
        #endif
    }
}
