import ConfabClient
import ConfabNode
import Logging
import ServiceLifecycle

/// The web app as a service of the node's group: it starts and stops with the node. An
/// address that cannot be bound (another node serves its app there) costs the app, never
/// the node: it says so and the node runs on without it.
struct WebService: Service {
    let configuration: WebConfiguration
    let messenger: LocalMessenger
    let directory: DataDirectory
    let logger: Logger
    let serving: @Sendable (String?) -> Void

    func run() async {
        do {
            let token = try LoginToken.loadOrCreate(in: directory)
            let app = WebApp.application(
                configuration: configuration, messenger: messenger, token: token, logger: logger
            ) { [logger, serving] address in
                logger.info("web app at \(address) (confab open signs a browser in)")
                serving(address)
            }
            try await app.run()
        } catch {
            logger.warning(
                """
                not serving the web app on \(configuration.host):\(configuration.port): \(Self.describe(error)); \
                pass --web 127.0.0.1:PORT for another port, or --no-web
                """)
            serving(nil)
            // The group ends when any service returns: this one waits for the node's end.
            try? await gracefulShutdown()
        }
        serving(nil)
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? WebError { return error.description }
        let text = "\(error)"
        if text.contains("Address already in use") { return "the address is in use (another confab's web app?)" }
        return text
    }
}

/// The web app as one of the node's front ends (`NodeOptions.frontEnds`).
public struct WebFrontEnd: NodeFrontEnd {
    public let configuration: WebConfiguration

    public init(configuration: WebConfiguration) {
        self.configuration = configuration
    }

    public func service(
        messenger: LocalMessenger, directory: DataDirectory, logger: Logger,
        serving: @escaping @Sendable (String?) -> Void
    ) -> any Service {
        WebService(
            configuration: configuration, messenger: messenger, directory: directory, logger: logger, serving: serving)
    }
}
