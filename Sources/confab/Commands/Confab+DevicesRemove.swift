import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

extension Confab {
    struct DevicesRemove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a machine from your devices, and rekey your conversations without it.",
            discussion: """
                Run it on the machine that holds the person key (the first one). The removed \
                machine reads nothing written after the conversations are rekeyed, and what it \
                writes from now on is refused. Asks for confirmation on a terminal; pass --yes \
                to skip (required when not on a terminal). Works whether or not "confab up" runs.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "The device's name in \"confab devices\", or a prefix of its key or fingerprint.")
        var device: String

        @Flag(name: [.customShort("y"), .long], help: "Do not ask for confirmation.")
        var yes = false

        struct Removed: Encodable {
            let id: String
            let name: String
            let rekeyed: [String]
            let notRekeyed: [String]
        }

        func run() throws {
            let node = try global.open()
            let store = node.store
            if let person = try store.linkedPerson() {
                throw CLIError(
                    "only the machine that holds \(try node.displayName())'s person key "
                        + "(\(person.shortHex), the first device) can remove devices; run "
                        + "\"confab devices remove \(device)\" there")
            }
            let list = try store.deviceList(of: node.me)
            let target = try Self.choose(device, in: list, personName: try node.displayName())
            let name = TextSanitizer.line(target.name ?? target.key.shortHex)
            if !yes {
                guard Console.stdinIsTerminal else {
                    throw CLIError("refusing to remove \(name) without confirmation; pass --yes")
                }
                Console.err("\(name) (\(target.key.shortHex))")
                guard
                    Console.confirm(
                        "Remove this device? It will read nothing written from now on, and what it writes will be "
                            + "refused. y/N")
                else {
                    Console.err("Not removed.")
                    return
                }
            }
            let outcome: DeviceRemovalOutcome
            do {
                outcome = try store.removeDevice(target.key)
            } catch let error as StoreError {
                throw CLIError(error.description)
            } catch let error as DeviceListError {
                throw CLIError("could not remove \(name): \(error)")
            }
            if output.json {
                try JSONOutput.print(
                    Removed(
                        id: target.key.hex, name: name, rekeyed: outcome.rekeyed.map(\.hex),
                        notRekeyed: outcome.notRekeyed.map(\.hex)))
                return
            }
            let count = outcome.rekeyed.count
            Console.out(
                "Removed \(name) (\(target.key.shortHex)) from your devices. "
                    + "\(count) conversation\(count == 1 ? "" : "s") rekeyed: what is written there from now on is "
                    + "sealed to keys \(name) does not hold.")
            if !outcome.notRekeyed.isEmpty {
                Console.out(
                    "\(outcome.notRekeyed.count) large group\(outcome.notRekeyed.count == 1 ? "" : "s") (\(outcome.notRekeyed.map(\.shortHex).joined(separator: ", "))) "
                        + "can be rekeyed only by their admin: \(name) can read what is written there until the admin "
                        + "removes or adds someone.")
            }
            Console.out("Your peers learn of it when this machine next meets them (at once if \"confab up\" runs).")
        }

        /// The listed device `query` names: its name (ignoring case), or a prefix of its key
        /// or fingerprint. The person key is never one: it is not listed, and never removed.
        static func choose(_ query: String, in list: DeviceList, personName: String) throws -> Device {
            let devices = list.listed
            func describe() -> String {
                devices.isEmpty
                    ? "this person has no other devices (link one with \"confab devices link\")"
                    : "devices: " + devices.map { "\($0.name ?? "?") (\($0.key.shortHex))" }.joined(separator: ", ")
            }
            let trimmed = query.trimmingCharacters(in: .whitespaces).lowercased()
            let hex = trimmed.filter { !$0.isWhitespace }
            let isKeyPrefix = hex.count >= 4 && hex.allSatisfy(\.isHexDigit)
            func named(_ key: NodeID, _ name: String?) -> Bool {
                name?.lowercased() == trimmed || (isKeyPrefix && key.hex.hasPrefix(hex))
            }
            var matches = devices.filter { $0.name?.lowercased() == trimmed }
            if matches.isEmpty, isKeyPrefix { matches = devices.filter { $0.key.hex.hasPrefix(hex) } }
            if matches.isEmpty, (isKeyPrefix && list.person.hex.hasPrefix(hex)) || trimmed == personName.lowercased() {
                throw CLIError("\(query) is this machine, which holds the person key: it is never removed")
            }
            switch matches.count {
            case 1:
                return matches[0]
            case 0:
                let removed = list.entries.contains { entry in
                    guard case .add(let key, let name) = entry.change else { return false }
                    return list.removal(of: key) != nil && named(key, name)
                }
                throw CLIError(
                    removed ? "\(query) was removed already; \(describe())" : "no device \(query); \(describe())")
            default:
                throw CLIError(
                    "\(query) names \(matches.count) devices; give more of the key: "
                        + matches.map { "\($0.name ?? "?") (\($0.key.shortHex))" }.joined(separator: ", "))
            }
        }
    }
}
