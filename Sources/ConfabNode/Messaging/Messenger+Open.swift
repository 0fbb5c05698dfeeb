import ConfabClient
import ConfabModel

extension Profile {
    /// The messenger a front end uses: the running `confab up` for this data directory if
    /// one answers, else this process's own — with a node started here when `options` are
    /// given (the chat), or none (a CLI command: writes wait in the outbox).
    public func messenger(startingNodeWith options: NodeOptions? = nil) async throws -> any Messenger {
        // A socket file can outlive its node (then connecting fails), and a node that is
        // stopping closes what it accepts unanswered: a line answered is the proof.
        if ControlServer.mightBeRunning(directory), let attached = try? await AttachedMessenger(local: self) {
            if await attached.isServed() { return attached }
            await attached.close()
        }
        guard let options else {
            // Rooms joined with no node running are joined on the network `confab up` would use.
            return LocalMessenger(
                local: self, network: try? NetworkKeySetting.resolve(flag: nil, directory: directory).key)
        }
        let node = try Node(options: options, local: self)
        try await node.start()
        return LocalMessenger(local: self, node: node, ownsNode: true)
    }
}
