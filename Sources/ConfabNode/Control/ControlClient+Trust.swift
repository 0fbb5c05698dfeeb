import ConfabModel

extension ControlClient {
    /// Tells a running node that a peer's trust changed in the store, so a block takes
    /// effect at once (its session closes) and an unblock lets the peer connect again;
    /// does nothing when no node runs (the node reads the block list when it starts).
    public static func notifyTrustIfRunning(_ directory: DataDirectory, peer: NodeID) async {
        guard mightBeRunning(directory) else { return }
        _ = try? await request(directory, method: "trust", params: ["peer": peer.hex], as: ControlProtocol.Empty.self)
    }
}
