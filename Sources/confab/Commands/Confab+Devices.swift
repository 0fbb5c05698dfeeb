import ArgumentParser

extension Confab {
    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "This person's machines: list them, link a new one, rename or remove one.",
            discussion: """
                A person's devices share one identity: the first machine holds the person key \
                and links the others ("confab devices link" here, "confab init --link CODE" there).
                """,
            subcommands: [DevicesList.self, DevicesLink.self, DevicesRename.self, DevicesRemove.self],
            defaultSubcommand: DevicesList.self)
    }
}
