import ConfabCrypto
import ConfabModel
import ConfabStore
import Foundation

/// This machine's profile: its identity, display name and store, opened from the data
/// directory — everything a front end reads, with or without a running `Node`. CLI
/// commands work on it offline; what they write waits in the outbox until a node runs.
public struct Profile: Sendable {
    public let directory: DataDirectory
    public let identity: SigningKeyPair
    public let store: ConfabStore

    public var me: NodeID { NodeID(identity.publicKey) }

    public init(directory: DataDirectory, identity: SigningKeyPair, store: ConfabStore) {
        self.directory = directory
        self.identity = identity
        self.store = store
    }

    /// Opens an initialised data directory.
    public static func open(_ directory: DataDirectory) throws -> Profile {
        let identity = try IdentityFile.load(from: directory.identityFile)
        let store = try ConfabStore(path: directory.databaseFile.path, identity: identity)
        return Profile(directory: directory, identity: identity, store: store)
    }

    /// Creates a new identity and store with a display name. The name is checked before
    /// anything is created, so a refused name leaves no half-made directory behind.
    public static func initialize(_ directory: DataDirectory, name: String) throws -> Profile {
        let name = DisplayName.cleaned(name)
        guard !name.isEmpty, name.utf8.count <= Limits.maxNameBytes else {
            throw StoreError.invalidInput("a display name needs 1 to \(Limits.maxNameBytes) bytes")
        }
        if let refusal = DisplayName.keyLikeRefusal(name) { throw StoreError.invalidInput(refusal) }
        try directory.create()
        try IdentityFile.create(SigningKeyPair.generate(), at: directory.identityFile)
        let node = try open(directory)
        try node.store.setDisplayName(name)
        return node
    }

    public func displayName() throws -> String {
        try store.displayName() ?? me.shortHex
    }
}
