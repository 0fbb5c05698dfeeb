import ConfabModel

/// What each side shows its person before it says yes (Protocol.md §20.10).
public struct LinkPrompt: Sendable, Equatable {
    /// The name the new device asked for.
    public let deviceName: String
    /// The new device's key.
    public let device: NodeID
    public let words: [String]

    public init(deviceName: String, device: NodeID, words: [String]) {
        self.deviceName = deviceName
        self.device = device
        self.words = words
    }
}

/// Asks the person whether the words match; true only for a yes.
public typealias LinkConfirmation = @Sendable (LinkPrompt) async -> Bool
