import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

extension Confab {
    struct DevicesRename: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Give one of your machines a new name, which your contacts see too.",
            discussion: """
                Run it on the machine that holds the person key (the first one); that machine \
                can be named too. Your contacts see a line saying so in your conversations, \
                and the new name in "confab peers". Works whether or not "confab up" runs.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "The device's name in \"confab devices\", or a prefix of its key or fingerprint.")
        var device: String

        @Argument(help: "Its new name (at most 64 bytes).")
        var name: String

        struct Renamed: Encodable {
            let id: String
            let previousName: String?
            let name: String
        }

        func validate() throws {
            let cleaned = DisplayName.cleaned(name)
            guard !cleaned.isEmpty else { throw ValidationError("the new name is empty") }
            guard cleaned.utf8.count <= Limits.maxNameBytes else {
                throw ValidationError(
                    "the new name is \(cleaned.utf8.count) bytes; a device name is at most \(Limits.maxNameBytes)")
            }
            if let refusal = DisplayName.keyLikeRefusal(cleaned) { throw ValidationError(refusal) }
        }

        func run() throws {
            let node = try global.open()
            let store = node.store
            let personName = try node.displayName()
            if let person = try store.linkedPerson() {
                throw CLIError(
                    "only the machine that holds \(personName)'s person key (\(person.shortHex), the first device) "
                        + "can rename devices; run \"confab devices rename\" there")
            }
            let list = try store.deviceList(of: node.me)
            guard !list.isEmpty else {
                throw CLIError(
                    "this machine is your only device, and others see it as you (\(TextSanitizer.line(personName))): "
                        + "\"confab rename NAME\" changes your name; machines get names of their own once you link "
                        + "one (\"confab devices link\")")
            }
            let target = try DeviceChooser.choose(device, in: list, personName: personName, includingPersonKey: true)
            let before = target.name.map(TextSanitizer.line)
            let shownBefore = TextSanitizer.line(
                DeviceChooser.name(of: target, in: list, personName: personName) ?? target.key.shortHex)
            let cleaned = DisplayName.cleaned(name)
            guard cleaned != target.name else {
                throw CLIError("\(shownBefore) (\(target.key.shortHex)) has that name already")
            }
            do {
                _ = try store.renameMyDevice(target.key, name: cleaned)
            } catch let error as StoreError {
                throw CLIError(error.description)
            } catch let error as DeviceListError {
                throw CLIError("could not rename \(shownBefore): \(error)")
            }
            let shown = TextSanitizer.line(cleaned)
            if output.json {
                try JSONOutput.print(Renamed(id: target.key.hex, previousName: before, name: shown))
                return
            }
            Console.out("Renamed \(shownBefore) (\(target.key.shortHex)) to \(shown).")
            Console.out("Your peers learn of it when this machine next meets them (at once if \"confab up\" runs).")
        }
    }
}
