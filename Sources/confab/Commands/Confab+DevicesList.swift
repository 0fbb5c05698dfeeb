import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import Foundation

extension Confab {
    struct DevicesList: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List this person's devices, from the device list held here.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        struct Item: Encodable {
            let id: String
            let name: String?
            let fingerprint: String
            /// Milliseconds since 1970 of the entry that added it; nil for the person key.
            let addedAt: Int64?
            let thisDevice: Bool
            let personKey: Bool
        }

        func run() throws {
            let node = try global.open()
            let person = try node.store.personKey()
            let list = try node.store.deviceList(of: person)
            let personName = try node.displayName()
            let items = list.devices.map { device in
                Item(
                    id: device.key.hex, name: device.name ?? (device.key == person ? personName : nil),
                    fingerprint: device.key.fingerprint,
                    addedAt: device.key == person ? nil : list.entries[Int(device.addedAt) - 1].timestamp,
                    thisDevice: device.key == node.me, personKey: device.key == person)
            }
            if output.json {
                try JSONOutput.print(items)
                return
            }
            for item in items {
                var line = "\(Style.bold(item.name ?? "?"))  \(String(item.id.prefix(8)))"
                if let addedAt = item.addedAt {
                    let date = Date(timeIntervalSince1970: TimeInterval(addedAt) / 1000)
                    line += "  added \(SmartTimestamp().short(date))"
                } else {
                    line += "  person key"
                }
                if item.thisDevice { line += "  (this device)" }
                Console.out(line)
            }
            if let removal = try node.store.myDeviceRemoval() {
                Console.out("⚠ " + TextSanitizer.line(removal.message))
            }
        }
    }
}
