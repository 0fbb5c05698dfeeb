import ConfabModel

extension Profile {
    /// The messenger a front end uses: the running `confab up` for this data directory if
    /// one answers, else this process's own — with a node started here when `startNode`
    /// gives options (the chat), or none (a CLI command: writes wait in the outbox).
    public func messenger(startingNodeWith options: NodeOptions? = nil) async throws -> any Messenger {
        if ControlServer.mightBeRunning(directory), let attached = try? await AttachedMessenger(local: self),
            (try? await attached.status()) != nil
        {
            return attached
        }
        guard let options else { return LocalMessenger(local: self) }
        let node = try Node(options: options, local: self)
        try await node.start()
        return LocalMessenger(local: self, node: node, ownsNode: true)
    }
}
