import ConfabNet
import ServiceLifecycle

/// UDP discovery, its sockets open since the node bound them: beacons go out on their own
/// schedule until shutdown closes them.
struct BeaconService: Service {
    let discovery: DiscoveryService

    func run() async {
        try? await gracefulShutdown()
        await discovery.stop()
    }
}
