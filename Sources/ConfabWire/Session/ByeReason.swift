/// Why a session ends, as its Bye says (Protocol.md §10.4). On the wire free text, so a
/// peer's reason is shown as it said it; the reasons this node acts on or sends itself
/// are the constants, matched as values rather than spelled out where they are used.
public struct ByeReason: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ text: String) { rawValue = text }
    public init(stringLiteral value: String) { rawValue = value }

    public var description: String { rawValue }

    /// The peer is stopping: it is offline from now on, whatever its beacons said.
    public static let shutdown: ByeReason = "shutdown"
    /// A second session with the same peer; the other one is kept (Protocol.md §10.3).
    public static let duplicateSession: ByeReason = "duplicate session"
    /// The node keeps at most so many sessions and closed this one to make room.
    public static let sessionLimit: ByeReason = "session limit"
    /// The peer sent what the protocol forbids.
    public static let protocolViolation: ByeReason = "protocol violation"
    /// The sender's person changed their name: it dials again at once, and the new session's
    /// `Hello` carries the name (Protocol.md §10.4).
    public static let renamed: ByeReason = "renamed"
    /// The peer is blocked here.
    public static let sessionRefused: ByeReason = "session refused"

    /// The two nodes' protocol versions do not overlap (Protocol.md §12.1).
    public static let incompatibleProtocol = refused(
        "incompatible protocol: this node speaks protocol \(SessionCodec.protocolVersion) and syncs with "
            + "\(SessionCodec.oldestProtocolVersion) to \(SessionCodec.protocolVersion); upgrade the older Confab")

    /// Reasons that mean "do not come back soon" start with this (Protocol.md §10.4); the
    /// rest of the text says why, for the person reading the other node's log.
    public static let refusalPrefix = "refused:"

    /// A refusal: "refused: " and what to do about it.
    public static func refused(_ why: String) -> ByeReason { ByeReason("\(refusalPrefix) \(why)") }

    public var isRefusal: Bool { rawValue.hasPrefix(Self.refusalPrefix) }
}
