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

        /// The host name, cleaned into a device name; "device" when it makes none.
        static var hostDeviceName: String {
            let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? ""
            let cleaned = DisplayName.cleaned(String(host.prefix(Limits.maxNameBytes)))
            guard !cleaned.isEmpty, DisplayName.keyLikeRefusal(cleaned) == nil else { return "device" }
            return cleaned
        }

        func run() async throws {
            let directory = global.directory
            let join: LinkJoin
            do {
                join = try LinkJoin(code: code, deviceName: name.map(DisplayName.cleaned) ?? Self.hostDeviceName)
            } catch {
                throw CLIError(error.description)
            }
            let linked: LinkJoin.Linked
            do {
                let address: HostPort
                if let peer {
                    address = try HostPort(peer)
                } else {
                    Console.out("Looking for the offer on the LAN…")
                    address = try await join.find(discovery: LinkDiscovery())
                }
                linked = try await join.run(
                    host: address.host, port: address.port,
                    events: { event in
                        if case .connecting(let host, let port) = event {
                            Console.out("Connecting to the offer at \(host):\(port)…")
                        }
                    },
                    confirm: { prompt in
                        Console.out("Words: \(prompt.words.joined(separator: " "))")
                        return await YesNoQuestion.ask("Do these words match the other machine? [y/N] ")
                    },
                    write: { grant, keys in
                        try Profile.createLinked(directory, identity: join.device, grant: grant, keys: keys) {
                            directory in
                            if let key = NetworkKey(bytes: grant.networkKey), key != .default {
                                try NetworkKeyFile.save(key, to: directory.networkKeyFile)
                            }
                        }
                    })
            } catch {
                throw CLIError("\(error)")
            }
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
