import ConfabModel
import ConfabStore
import Foundation

/// Which of this person's devices a word a person typed means, the same way wherever it was
/// typed (`confab devices remove` and `rename`, `/devices remove` in either chat): its name
/// (ignoring case), or a prefix of its key or fingerprint.
public enum DeviceChooser {
    /// The device `query` names. With `includingPersonKey`, the person key (this machine, the
    /// first) is one of them, by its own name or the person's; without it, naming it says it
    /// never is (`remove`).
    public static func choose(
        _ query: String, in list: DeviceList, personName: String, includingPersonKey: Bool
    ) throws -> Device {
        let devices = includingPersonKey ? list.devices : list.listed
        func shown(_ device: Device) -> String {
            "\(name(of: device, in: list, personName: personName) ?? "?") (\(device.key.shortHex))"
        }
        func describe() -> String {
            list.listed.isEmpty
                ? "this person has no other devices (link one with \"confab devices link\")"
                : "devices: " + devices.map(shown).joined(separator: ", ")
        }
        let trimmed = query.trimmingCharacters(in: .whitespaces).lowercased()
        let hex = trimmed.filter { !$0.isWhitespace }
        let isKeyPrefix = hex.count >= 4 && hex.allSatisfy(\.isHexDigit)
        func named(_ key: NodeID, _ name: String?) -> Bool {
            name?.lowercased() == trimmed || (isKeyPrefix && key.hex.hasPrefix(hex))
        }
        // The person key answers to the person's name too, as `devices list` shows it.
        func isNamed(_ device: Device) -> Bool {
            device.name?.lowercased() == trimmed || (device.key == list.person && trimmed == personName.lowercased())
        }
        var matches = devices.filter(isNamed)
        if matches.isEmpty, isKeyPrefix { matches = devices.filter { $0.key.hex.hasPrefix(hex) } }
        if !includingPersonKey, matches.isEmpty,
            (isKeyPrefix && list.person.hex.hasPrefix(hex)) || named(list.person, list.personDeviceName)
                || trimmed == personName.lowercased()
        {
            throw StoreError.invalidInput("\(query) is this machine, which holds the person key: it is never removed")
        }
        switch matches.count {
        case 1:
            return matches[0]
        case 0:
            let removed = removedNames(in: list).contains { key, name in named(key, name) }
            throw StoreError.invalidInput(
                removed ? "\(query) was removed already; \(describe())" : "no device \(query); \(describe())")
        default:
            throw StoreError.invalidInput(
                "\(query) names \(matches.count) devices; give more of the key: "
                    + matches.map(shown).joined(separator: ", "))
        }
    }

    /// How `devices list` names a device: the person key, unnamed, by the person's name.
    public static func name(of device: Device, in list: DeviceList, personName: String) -> String? {
        device.name ?? (device.key == list.person ? personName : nil)
    }

    /// The removed devices, each by the name it had when removed (its last rename's).
    private static func removedNames(in list: DeviceList) -> [(NodeID, String)] {
        var names: [NodeID: String] = [:]
        var removed: [(NodeID, String)] = []
        for entry in list.entries {
            switch entry.change {
            case .add(let key, let name), .rename(let key, let name): names[key] = name
            case .remove(let key, _): removed.append((key, names[key] ?? key.shortHex))
            }
        }
        return removed
    }
}
