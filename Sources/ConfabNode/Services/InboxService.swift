import ServiceLifecycle

/// The node's router: every session's messages, beacons and written chunks, in order, until
/// the group shuts down. First in the group, so stopped last: what peers sent while the
/// other parts were closing is still stored.
struct InboxService: Service {
    let node: Node

    func run() async {
        await withGracefulShutdownHandler {
            await node.processInbox()
        } onGracefulShutdown: { [node] in
            node.finishInbox()
        }
    }
}
