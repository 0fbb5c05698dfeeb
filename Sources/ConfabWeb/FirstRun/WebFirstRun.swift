import ConfabClient
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import UnixSignals

/// `confab up` on a machine with no identity: before the node can start, the web app asks
/// for the person's name, as the terminal's first run does. It serves, behind the app's own
/// guards (headers, `Host` and `Origin`, the session cookie), the login and one form; once a
/// valid name is posted it stops, and the caller makes the identity and starts the node on
/// the same address. While it waits, its address is in `web-welcome` in the data directory,
/// for `confab open`.
public enum WebFirstRun {
    public struct Stopped: Error, CustomStringConvertible {
        public var description: String {
            "stopped before a name was chosen: run confab up again, or confab init --name NAME"
        }
    }

    /// The name chosen; throws `Stopped` when one of `stopSignals` (SIGINT and SIGTERM, as the
    /// node stops on) comes before one was. A process that handles its signals itself (a test
    /// process) passes none.
    public static func askName(
        configuration: WebConfiguration, directory: DataDirectory, suggested: String, logger: Logger,
        stopSignals: [UnixSignal] = [.sigterm, .sigint],
        announce: @escaping @Sendable (_ link: String) -> Void
    ) async throws -> String {
        try directory.create()
        let token = try LoginToken.loadOrCreate(in: directory)
        let (names, namesIn) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(1))
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: OriginMiddleware())
        router.add(middleware: SessionMiddleware(token: token, passwordLogin: configuration.password != nil))
        LoginRoutes(token: token, password: configuration.password).add(to: router)
        WelcomeRoutes(suggested: suggested) { namesIn.yield($0) }.add(to: router)
        var serverLogger = logger
        serverLogger.logLevel = max(logger.logLevel, .notice)
        let marker = directory.url.appendingPathComponent("web-welcome")
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                var served = configuration
                if let port = channel.localAddress?.port { served.port = port }
                try? Data(served.browserAddress.utf8).write(to: marker, options: .atomic)
                announce(token.loginLink(address: served.browserAddress))
            },
            logger: serverLogger)
        let group = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: stopSignals, logger: serverLogger))
        defer { try? FileManager.default.removeItem(at: marker) }
        return try await withThrowingTaskGroup(of: String?.self) { tasks in
            tasks.addTask {
                try await group.run()
                namesIn.finish()
                return nil
            }
            tasks.addTask {
                var chosen: String?
                for await name in names {
                    chosen = name
                    break
                }
                await group.triggerGracefulShutdown()
                return chosen
            }
            var chosen: String?
            for try await result in tasks where result != nil { chosen = result }
            guard let chosen else { throw Stopped() }
            return chosen
        }
    }
}
