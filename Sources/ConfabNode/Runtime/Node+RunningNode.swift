import ConfabClient

/// What this process's `LocalMessenger` asks of the node (the control socket's answers
/// come from one too).
extension Node: RunningNode {
    public nonisolated var maxFileSize: UInt64 { options.maxFileSize }
}
