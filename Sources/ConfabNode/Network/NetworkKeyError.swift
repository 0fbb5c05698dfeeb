import ConfabClient
import Foundation

/// Why the network key could not be read or written. Messages say what to do.
public struct NetworkKeyError: Error, Equatable, CustomStringConvertible {
    private enum Reason: Equatable {
        case badEnvironment
        case badText(String)
        case tooOpen(String, mode: mode_t)
        case malformed(String, String)
        case unreadable(String, String)
        case unwritable(String, String)
    }

    private let reason: Reason

    static let badEnvironment = NetworkKeyError(reason: .badEnvironment)
    static func badText(_ origin: String) -> NetworkKeyError { NetworkKeyError(reason: .badText(origin)) }
    static func tooOpen(_ path: String, mode: mode_t) -> NetworkKeyError {
        NetworkKeyError(reason: .tooOpen(path, mode: mode))
    }
    static func malformed(_ path: String, _ why: String) -> NetworkKeyError {
        NetworkKeyError(reason: .malformed(path, why))
    }
    static func unreadable(_ path: String, _ why: String) -> NetworkKeyError {
        NetworkKeyError(reason: .unreadable(path, why))
    }
    static func unwritable(_ path: String, _ why: String) -> NetworkKeyError {
        NetworkKeyError(reason: .unwritable(path, why))
    }

    public var description: String {
        switch reason {
        case .badEnvironment:
            return "CONFAB_NETWORK_KEY is not a network key: it must be 32 bytes as 64 hex characters or base64 "
                + "(\"confab network new\" makes one); fix or unset it"
        case .badText(let origin):
            return "\(origin) is not a network key: it must be 32 bytes as 64 hex characters or base64 "
                + "(\"confab network new\" makes one)"
        case .tooOpen(let path, let mode):
            return "network key file \(path) is readable by others (mode \(String(mode, radix: 8))); "
                + "run \"chmod 600 \(path)\" and try again"
        case .malformed(let path, let why):
            return "network key file \(path) is damaged (\(why)); rewrite it with \"confab network use KEY\" "
                + "or remove it with \"confab network use --default\""
        case .unreadable(let path, let why):
            return "cannot read network key file \(path): \(why)"
        case .unwritable(let path, let why):
            return "cannot write network key file \(path): \(why)"
        }
    }
}
