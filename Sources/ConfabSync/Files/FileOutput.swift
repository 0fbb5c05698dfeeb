import ConfabModel
import ConfabStore
import ConfabWire

/// What the node must do after the file exchange handled an input.
public struct FileOutput: Sendable {
    /// A verified chunk, to be written and synced before it counts as held.
    public struct ChunkWrite: Sendable {
        public let file: FileID
        public let layout: FileLayout
        public let index: Int
        public let data: [UInt8]
    }

    /// What a peer says it holds of a file this node holds whole: how far a recipient got.
    public struct PeerProgress: Sendable, Equatable {
        public let peer: NodeID
        public let file: FileID
        public let heldBytes: UInt64
        public let complete: Bool
    }

    public var sends: [NodeID: [SessionMessage]] = [:]
    public var writes: [ChunkWrite] = []
    /// Files whose content here changed (chunks held, complete, failed).
    public var progress: Set<FileID> = []
    public var peerProgress: [PeerProgress] = []
    /// Peers to disconnect, and why (bad chunks, or file messages before Hello).
    public var misbehaving: [NodeID: String] = [:]
    /// Chunks (or manifests) that failed their check, by the peer that sent them.
    public var badChunks: [NodeID: Int] = [:]

    public init() {}

    mutating func send(_ message: SessionMessage, to peer: NodeID) {
        sends[peer, default: []].append(message)
    }

    mutating func merge(_ other: FileOutput) {
        for (peer, messages) in other.sends { sends[peer, default: []] += messages }
        writes += other.writes
        progress.formUnion(other.progress)
        peerProgress += other.peerProgress
        misbehaving.merge(other.misbehaving) { first, _ in first }
        badChunks.merge(other.badChunks, uniquingKeysWith: +)
    }
}
