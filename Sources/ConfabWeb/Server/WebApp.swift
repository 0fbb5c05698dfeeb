import ConfabClient
import Hummingbird
import HummingbirdWebSocket
import Logging

/// The app's routes behind its guards, outermost first: the security headers on every
/// answer, then `Host` and `Origin` (DNS rebinding, cross-site requests and WebSockets),
/// then the session cookie; then the login, the operations, the events and the files of
/// the front end.
enum WebApp {
    static func router(
        messenger: LocalMessenger, token: LoginToken, password: String?
    ) -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: OriginMiddleware())
        router.add(middleware: SessionMiddleware(token: token, passwordLogin: password != nil))
        LoginRoutes(token: token, password: password).add(to: router)
        let linkOffers = WebLinkOffers()
        OperationRoutes(messenger: messenger, linkOffers: linkOffers).add(to: router)
        EventSocket(fanOut: EventFanOut(messenger: messenger, linkOffers: linkOffers)).add(to: router)
        FileRoutes(messenger: messenger).add(to: router)
        UploadRoutes(messenger: messenger).add(to: router)
        WebAssets().add(to: router)
        return router
    }

    static func application(
        configuration: WebConfiguration, messenger: LocalMessenger, token: LoginToken, logger: Logger,
        onServing: @escaping @Sendable (String) -> Void
    ) -> some ApplicationProtocol {
        let router = router(messenger: messenger, token: token, password: configuration.password)
        var serverLogger = logger
        // Hummingbird's own lines (each request) are for debugging; the node says where it serves.
        serverLogger.logLevel = max(logger.logLevel, .notice)
        return Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: router,
                configuration: .init(
                    ws: .init(maxFrameSize: 1 << 16, autoPing: .enabled(timePeriod: .seconds(30))))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                var served = configuration
                if let port = channel.localAddress?.port { served.port = port }
                onServing(served.browserAddress)
            },
            logger: serverLogger)
    }
}
