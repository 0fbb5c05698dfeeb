import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

extension Confab {
    struct DevicesRemove: AsyncParsableCommand {
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

        func run() async throws {
            let node = try global.open()
            if let refusal = try Operations.RemoveDevice.refusal(on: node, removing: device) {
                throw CLIError(refusal.description)
            }
            let list = try node.store.deviceList(of: node.me)
            let target = try DeviceChooser.choose(
                device, in: list, personName: try node.displayName(), includingPersonKey: false)
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
            // The operation every front end uses: a running node tells peers at once.
            let outcome = try await node.messenger().perform(Operations.RemoveDevice(target.key))
            if output.json {
                try JSONOutput.print(outcome)
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
    }
}
