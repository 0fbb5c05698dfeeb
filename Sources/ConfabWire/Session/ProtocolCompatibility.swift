/// How this node and a peer, by the versions their Hellos said, can talk (Protocol.md
/// §12.1). A peer's versions are its own claim: a lie changes only the peer's own
/// session (it could refuse or cripple that anyway), never what others are shown.
public enum ProtocolCompatibility: Sendable, Equatable {
    /// Both speak the same version.
    case same
    /// The peer speaks an older version this node still syncs with. Some of what this node
    /// writes is lost on it, and some of what it writes is refused here (for protocol 1,
    /// the conversations it starts, §4.9).
    case older(UInt32)
    /// The peer speaks a newer version that still syncs with this one.
    case newer(UInt32)
    /// The peer's version is older than the oldest this node syncs with: no sync.
    case tooOld(UInt32)
    /// The peer no longer syncs with this node's version: no sync.
    case tooNew(UInt32)

    public init(
        peerVersion: UInt32, peerOldest: UInt32, mine: UInt32 = SessionCodec.protocolVersion,
        oldest: UInt32 = SessionCodec.oldestProtocolVersion
    ) {
        if peerVersion < oldest {
            self = .tooOld(peerVersion)
        } else if peerOldest > mine {
            self = .tooNew(peerVersion)
        } else if peerVersion < mine {
            self = .older(peerVersion)
        } else if peerVersion > mine {
            self = .newer(peerVersion)
        } else {
            self = .same
        }
    }

    public init(_ hello: SessionMessage.Hello) {
        self.init(peerVersion: hello.version, peerOldest: hello.oldestVersion)
    }

    /// Whether the two sync at all.
    public var syncs: Bool {
        switch self {
        case .same, .older, .newer: true
        case .tooOld, .tooNew: false
        }
    }

    /// The peer's version, when it is not this node's.
    public var peerVersion: UInt32? {
        switch self {
        case .same: nil
        case .older(let version), .newer(let version), .tooOld(let version), .tooNew(let version): version
        }
    }
}
