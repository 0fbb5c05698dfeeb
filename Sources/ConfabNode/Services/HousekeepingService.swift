import ServiceLifecycle

/// The node's timed duties (`Housekeeping` names them and says when), until shutdown.
struct HousekeepingService: Service {
    let node: Node

    func run() async {
        await cancelWhenGracefulShutdown { await node.housekeeping() }
    }
}
