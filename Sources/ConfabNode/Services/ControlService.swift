import ConfabClient
import Logging
import ServiceLifecycle

/// The control socket, bound when the node started: each connection served by the node's
/// messenger. Last in the group, so stopped first: nothing asked of the node during the
/// shutdown is accepted and then lost.
struct ControlService: Service {
    let server: ControlServer
    let messenger: LocalMessenger
    let logger: Logger

    func run() async {
        await cancelWhenGracefulShutdown { [server, messenger, logger] in
            await server.run(messenger: messenger, logger: logger)
        }
        await server.close()
    }
}
