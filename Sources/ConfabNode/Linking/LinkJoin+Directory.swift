import ConfabClient
import ConfabWire

extension LinkJoin {
    /// Writes the new device's data directory from a checked grant: the one writer for every
    /// front end that joins (`confab init --link`, both chats' first run), so each keeps the
    /// network the other machine uses.
    public func writer(_ directory: DataDirectory) -> (LinkGrant, [LinkEpochKey]) throws -> Profile {
        { grant, keys in
            try Profile.createLinked(directory, identity: device, grant: grant, keys: keys) { directory in
                if let key = NetworkKey(bytes: grant.networkKey), key != .default {
                    try NetworkKeyFile.save(key, to: directory.networkKeyFile)
                }
            }
        }
    }
}
