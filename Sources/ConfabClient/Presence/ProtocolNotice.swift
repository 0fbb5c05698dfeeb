import ConfabWire

/// The words every front end uses for a peer whose protocol version is not this node's, so
/// that `peers`, `status`, `doctor` and both chats say the same thing.
public enum ProtocolNotice {
    /// Nil when the difference costs nothing (a newer peer that still speaks this version
    /// writes nothing this node cannot show).
    public static func text(name: String, _ compatibility: ProtocolCompatibility) -> String? {
        switch compatibility {
        case .same, .newer:
            return nil
        case .older(1):
            // Protocol.md §4.9: what a protocol 1 node starts is refused here, and what this
            // node writes beyond messages is an unknown kind there.
            return "\(name) runs an older Confab (protocol 1): conversations \(name) starts wait until "
                + "\(name) upgrades, and \(name) does not see edits, reactions, files or member changes"
        case .older(let version):
            return "\(name) runs an older Confab (protocol \(version)): some of what you write is not shown "
                + "to \(name) until \(name) upgrades"
        case .tooOld(let version):
            return "\(name) runs an older Confab (protocol \(version)); messages to \(name) wait until one of "
                + "you upgrades"
        case .tooNew(let version):
            return "\(name) runs a newer Confab (protocol \(version)) that no longer talks to this one "
                + "(protocol \(SessionCodec.protocolVersion)); messages to \(name) wait until you upgrade"
        }
    }
}
