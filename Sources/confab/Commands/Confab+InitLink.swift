import ConfabClient
import ConfabModel
import ConfabNode
import ConfabWire
import Foundation

extension Confab.Init {
    /// `confab init --link CODE`: joins this machine to a person's devices (Protocol.md
    /// §20.10) instead of making a new person. The data directory is written only once the
    /// other machine's grant has been checked.
    struct InitLink {
        let global: GlobalOptions
        let output: OutputOptions
        let code: LinkCode
        let name: String?
        let peer: String?

        func run() async throws {
            let directory = global.directory
            let joining = try DeviceJoin(
                directory: directory, code: code, deviceName: name.map(DisplayName.cleaned) ?? DeviceJoin.hostDeviceName
            )
            let address: HostPort?
            do {
                address = try peer.map { try HostPort($0) }
            } catch {
                throw CLIError("--peer must be HOST:PORT, as \"confab devices link\" prints it")
            }
            let linked = try await joining.run(
                DeviceJoin.Location(address: address, discovery: address == nil ? LinkDiscovery() : nil))
            let join = joining.join
            let node = linked.profile
            if output.json {
                try JSONOutput.print(Confab.WhoAmI.Info(node: node, name: try node.displayName()))
                return
            }
            Console.out(
                """
                Linked \(join.deviceName) (\(node.me.shortHex)) to \(linked.personName) (\(linked.person.shortHex)).
                Data directory: \(directory.path)
                Next: confab up (your conversations arrive from your other devices)
                """)
        }
    }
}
