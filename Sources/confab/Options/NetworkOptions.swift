import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import ConfabWire
import Foundation
import Logging

/// How a node process runs: `up` and `relay` share these.
struct NetworkOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "TCP address to accept sessions on; [::] takes IPv4 and IPv6 (IPv4 only where the machine has no IPv6).",
            valueName: "HOST:PORT"))
    var listen = "[::]:\(HostPort.defaultSessionPort)"

    @Option(help: "UDP port for discovery beacons (shared by every node on a host).")
    var discoveryPort = HostPort.defaultDiscoveryPort

    @Option(
        name: .customLong("beacon"),
        help: ArgumentHelp(
            "Where to send beacons (repeatable; default: each up interface's IPv4 broadcast address and the IPv6 link-local group ff12::7460, followed as interfaces come and go).",
            valueName: "ADDR[:PORT]"))
    var beacons: [String] = []

    @Flag(help: "Do not send or listen for beacons (use --peer).")
    var noDiscovery = false

    @Option(
        name: .customLong("peer"),
        help: ArgumentHelp("A peer to dial with backoff (repeatable).", valueName: "[KEY@]HOST:PORT"))
    var peers: [String] = []

    @Option(
        help: ArgumentHelp(
            "Network key: 64 hex characters or base64 (default: $CONFAB_NETWORK_KEY, else the data directory's network.key from \"confab network use\", else Confab's public key).",
            valueName: "KEY"))
    var networkKey: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    @Option(
        help: ArgumentHelp(
            "No file larger is sent or fetched (default 4GiB; at most 8GiB).", valueName: "SIZE"))
    var maxFileSize: String?

    func validate() throws {
        if let key = networkKey, NetworkKey(text: key) == nil {
            throw ValidationError(
                "--network-key must be 32 bytes as 64 hex characters or base64 (\"confab network new\" makes one)")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        guard (1...65535).contains(discoveryPort) else { throw ValidationError("--discovery-port must be 1–65535") }
        if let maxFileSize {
            guard let bytes = ByteSize.parse(maxFileSize), bytes > 0, UInt64(bytes) <= FileLayout.maxSize else {
                throw ValidationError("--max-file-size must be a size from 1 byte to 8GiB (e.g. 500MB, 2GiB)")
            }
        }
        _ = try listenAddress()
    }

    func listenAddress() throws -> HostPort {
        do {
            return try HostPort(listen, ports: 0...65535)
        } catch {
            throw Self.badListen
        }
    }

    private static let badListen = ValidationError(
        "--listen must be HOST:PORT, e.g. 0.0.0.0:7461 (IPv4), [::]:7461 (IPv4 and IPv6) or [fe80::1%eth0]:7461")

    func nodeOptions(directory: DataDirectory, role: ConfabWire.NodeRole) throws -> NodeOptions {
        var options = NodeOptions(directory: directory)
        options.role = role
        let listen = try listenAddress()
        options.listenHost = listen.host
        options.listenPort = listen.port
        options.discovery = !noDiscovery
        options.discoveryPort = discoveryPort
        options.beaconTargets = beacons
        options.staticPeers = peers
        if let bytes = maxFileSize.flatMap(ByteSize.parse) { options.maxFileSize = UInt64(bytes) }
        let setting = try NetworkKeySetting.resolve(flag: networkKey, directory: directory)
        options.networkKey = setting.key
        options.networkKeySource = setting.source
        var logger = Logger(label: "confab")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        logger.info("network \(setting.tag) (key from \(setting.source.rawValue))")
        options.logger = logger
        return options
    }
}
