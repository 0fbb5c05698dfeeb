import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a connect or a bind failed, in the system's own words (`Connection refused`,
/// `Address already in use`) for a log or a report: NIO's own description of a refused
/// connect is a dump of every address it tried.
public enum ConnectFailure {
    public static func describe(_ error: any Error) -> String {
        if let code = errno(of: error) { return String(cString: strerror(code)) }
        if let error = error as? ChannelError, case .connectTimeout = error { return "timed out" }
        return "\(error)"
    }

    public static func errno(of error: any Error) -> Int32? {
        if let error = error as? IOError { return error.errnoCode }
        if let error = error as? NIOConnectionError {
            return error.connectionErrors.lazy.compactMap { Self.errno(of: $0.error) }.first
        }
        return nil
    }
}
