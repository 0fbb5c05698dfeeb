import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import Foundation

extension Confab {
    struct DevicesList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List this person's devices, from the device list held here.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let messenger = try await global.open().messenger()
            let listing = try await messenger.perform(Operations.Devices())
            // Only a running node knows who is online now.
            let online = messenger.reachesNode ? Set(try await messenger.peers().filter(\.online).map(\.id)) : []
            if output.json {
                try JSONOutput.print(listing)
                return
            }
            let time = SmartTimestamp()
            for device in listing.devices {
                var line = "\(Style.bold(TextSanitizer.line(device.name ?? "?")))  \(String(device.id.hex.prefix(8)))"
                line += device.addedAt.map { "  added \(time.short($0))" } ?? "  person key"
                if device.thisDevice {
                    line += "  (this device)"
                } else if online.contains(device.id) {
                    line += "  online"
                } else {
                    line += device.lastSeen.map { "  last seen \(time.short($0))" } ?? "  not met yet"
                }
                Console.out(line)
            }
            if let removed = listing.removed {
                Console.out("⚠ " + TextSanitizer.line(removed.message))
            }
        }
    }
}
