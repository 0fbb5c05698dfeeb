import ConfabClient
import ConfabCrypto
import ConfabWire
import Foundation

/// The network key a node uses and where it came from. Precedence: the `--network-key`
/// flag, then `$CONFAB_NETWORK_KEY`, then the data directory's `network.key`, then
/// Confab's public default.
public struct NetworkKeySetting: Sendable, Equatable {
    public enum Source: String, Sendable, Codable {
        case flag
        case environment
        case config
        case `default`
    }

    public static let environmentVariable = "CONFAB_NETWORK_KEY"

    public let key: NetworkKey
    public let source: Source

    public init(key: NetworkKey, source: Source) {
        self.key = key
        self.source = source
    }

    /// Empty values count as unset, so `CONFAB_NETWORK_KEY= confab up` falls through to
    /// the config file rather than failing.
    public static func resolve(
        flag: String?, directory: DataDirectory,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(NetworkKeyError) -> NetworkKeySetting {
        if let flag, !flag.isEmpty {
            guard let key = NetworkKey(text: flag) else { throw .badText("--network-key") }
            return NetworkKeySetting(key: key, source: .flag)
        }
        if let text = environment[environmentVariable], !text.isEmpty {
            guard let key = NetworkKey(text: text) else { throw .badEnvironment }
            return NetworkKeySetting(key: key, source: .environment)
        }
        if let key = try NetworkKeyFile.load(from: directory.networkKeyFile) {
            return NetworkKeySetting(key: key, source: .config)
        }
        return NetworkKeySetting(key: .default, source: .default)
    }

    /// The beacon tag (Protocol.md §11.2): names the network without revealing the key.
    public var tag: String { key.tagHex }
}

extension NetworkKey {
    public var tagHex: String { Hex.encode(tag) }
}
