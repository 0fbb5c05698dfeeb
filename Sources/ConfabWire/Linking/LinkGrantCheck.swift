import ConfabCrypto
import ConfabModel

/// What a new machine checks of a grant before it writes anything (Protocol.md §20.10): the
/// list is a valid list of the person it names, its last entry adds exactly this device,
/// and this device opens the person's encryption key from it. Only the holder of P can
/// write such an entry for a key made moments ago, so a grant that passes came from P.
public enum LinkGrantCheck {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    public static func check(_ grant: LinkGrant, device: SigningKeyPair) throws(Failure) -> DeviceList {
        let list: DeviceList
        do {
            list = try DeviceEntryCodec.decodeList(grant.deviceEntries, person: grant.person)
        } catch {
            throw Failure("the device list is not a valid list of \(grant.person.shortHex): \(error)")
        }
        let me = NodeID(device.publicKey)
        guard case .add(let added, _)? = list.entries.last?.change, added == me else {
            throw Failure("the device list's last entry does not add this device (\(me.shortHex))")
        }
        guard list.encryptionKeyPair(for: device) != nil else {
            throw Failure("this device cannot open the person's encryption key from the list")
        }
        guard NetworkKey(bytes: grant.networkKey) != nil else {
            throw Failure("a network key of \(grant.networkKey.count) bytes")
        }
        return list
    }
}
