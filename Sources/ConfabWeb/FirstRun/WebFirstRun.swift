import ConfabClient
import ConfabNode
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import UnixSignals

/// `confab up` on a machine with no identity: before the node can start, the web app asks
/// for the person's name, or the code `confab devices link` shows on their other machine, as
/// the terminal's first run does. It serves, behind the app's own guards (headers, `Host` and
/// `Origin`, the session cookie), the login and its forms; once a valid name is posted, or a
/// link is made, it stops, and the caller makes the identity (or opens the linked one) and
/// starts the node on the same address. While it waits, its address is in `web-welcome` in the data directory,
/// for `confab open`.
public enum WebFirstRun {
    public struct Stopped: Error, CustomStringConvertible {
        public var description: String {
            "stopped before a name was chosen: run confab up again, or confab init --name NAME"
        }
    }

    /// What the person chose.
    public enum Welcome: Sendable {
        /// A new person of this name: the caller makes the identity.
        case name(String)
        /// This machine linked to the person's devices: its data directory is written.
        case linked(LinkJoin.Linked)
    }

    /// How a link from the first run is made.
    public struct Linking: Sendable {
        /// The name this device asks to be linked as.
        public var deviceName: String
        /// Where the offer's beacons are listened for when no address is given; nil with
        /// discovery off.
        public var discovery: LinkDiscovery?
        /// How long the words wait for the person's Yes before it counts as No.
        public var answerTimeout: Duration

        public init(deviceName: String, discovery: LinkDiscovery?, answerTimeout: Duration = .seconds(120)) {
            self.deviceName = deviceName
            self.discovery = discovery
            self.answerTimeout = answerTimeout
        }
    }

    /// The name chosen or the link made; throws `Stopped` when one of `stopSignals` (SIGINT
    /// and SIGTERM, as the node stops on) comes before either. A process that handles its
    /// signals itself (a test process) passes none.
    public static func welcome(
        configuration: WebConfiguration, directory: DataDirectory, suggested: String, linking: Linking,
        logger: Logger, stopSignals: [UnixSignal] = [.sigterm, .sigint],
        announce: @escaping @Sendable (_ link: String) -> Void
    ) async throws -> Welcome {
        try directory.create()
        let token = try LoginToken.loadOrCreate(in: directory)
        let (names, namesIn) = AsyncStream.makeStream(of: Welcome.self, bufferingPolicy: .bufferingOldest(1))
        let joining = WebLinkJoin(
            directory: directory, deviceName: linking.deviceName, discovery: linking.discovery,
            answerTimeout: linking.answerTimeout)
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: OriginMiddleware())
        router.add(middleware: SessionMiddleware(token: token, passwordLogin: configuration.password != nil))
        LoginRoutes(token: token, password: configuration.password).add(to: router)
        WelcomeRoutes(suggested: suggested, joining: joining) { namesIn.yield($0) }.add(to: router)
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
        return try await withThrowingTaskGroup(of: Welcome?.self) { tasks in
            tasks.addTask {
                try await group.run()
                namesIn.finish()
                return nil
            }
            tasks.addTask {
                var chosen: Welcome?
                for await name in names {
                    chosen = name
                    break
                }
                await group.triggerGracefulShutdown()
                return chosen
            }
            var chosen: Welcome?
            for try await result in tasks { chosen = chosen ?? result }
            guard let chosen else { throw Stopped() }
            return chosen
        }
    }
}
