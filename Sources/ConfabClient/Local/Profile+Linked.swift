import ConfabCrypto
import ConfabModel
import ConfabStore
import ConfabWire
import Foundation

extension Profile {
    /// Creates the data directory of a device linked to a person (Protocol.md §20.10) from a
    /// grant already checked: its own key, the store with the person's list, the person, the
    /// display name and the conversation keys. Fails without leaving a half-made directory:
    /// whatever it created is removed again.
    public static func createLinked(
        _ directory: DataDirectory, identity: SigningKeyPair, grant: LinkGrant, keys: [LinkEpochKey],
        extraFiles: (DataDirectory) throws -> Void = { _ in }
    ) throws -> Profile {
        let existed = FileManager.default.fileExists(atPath: directory.path)
        var created: [URL] = []
        do {
            try directory.create()
            if !existed { created.append(directory.url) }
            try IdentityFile.create(identity, at: directory.identityFile)
            created.append(directory.identityFile)
            let store = try ConfabStore(path: directory.databaseFile.path, identity: identity)
            created += [
                directory.databaseFile, URL(fileURLWithPath: directory.databaseFile.path + "-wal"),
                URL(fileURLWithPath: directory.databaseFile.path + "-shm"),
            ]
            try store.takeLink(
                person: grant.person, list: grant.deviceEntries, displayName: grant.displayName, keys: keys)
            try extraFiles(directory)
            return Profile(directory: directory, identity: identity, store: store)
        } catch {
            for url in created.reversed() { try? FileManager.default.removeItem(at: url) }
            throw error
        }
    }
}
