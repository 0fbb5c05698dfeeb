import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the IPv4 broadcast addresses of the machine's interfaces.
enum BroadcastTargets {
    static func discover(port: Int) -> [SocketAddress] {
        guard let devices = try? System.enumerateDevices() else { return [] }
        let up = upInterfaceNames()
        var targets: [SocketAddress] = []
        for device in devices where up.contains(device.name) {
            guard case .v4(let address)? = device.address, !isLoopback(address.address.sin_addr),
                var target = device.broadcastAddress, case .v4(let broadcast) = target,
                !isLoopback(broadcast.address.sin_addr)
            else { continue }
            target.port = port
            if !targets.contains(target) { targets.append(target) }
        }
        return targets
    }

    /// 127.0.0.0/8, in network byte order.
    private static func isLoopback(_ address: in_addr) -> Bool {
        UInt32(bigEndian: address.s_addr) >> 24 == 127
    }

    /// NIO's device list does not say whether an interface is up; sending to a down
    /// interface's broadcast address would only fail, every interval, in the logs.
    private static func upInterfaceNames() -> Set<String> {
        var names = Set<String>()
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return names }
        defer { freeifaddrs(list) }
        var cursor = list
        while let entry = cursor {
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            if flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0, let name = entry.pointee.ifa_name {
                names.insert(String(cString: name))
            }
            cursor = entry.pointee.ifa_next
        }
        return names
    }
}
