import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode

extension Confab {
    struct Peers: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List known peers, or add one by key.",
            subcommands: [ListPeers.self, AddPeer.self],
            defaultSubcommand: ListPeers.self)
    }

    struct ListPeers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List known peers (online or offline when a node is running).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let local = try global.open()
            // Another person's machines are that person, not peers of their own.
            let owners = try local.store.deviceOwners()
            let peers = try local.store.peers().filter { owners[$0.id] == nil }
            let presence = try? await AttachedMessenger(local: local).peers()
            if output.json {
                if let presence {
                    try JSONOutput.print(presence)
                } else {
                    try JSONOutput.print(peers.map(JSONOutput.peer))
                }
                return
            }
            // Names, addresses and warnings come from the network: one sanitised line each.
            if let presence, !presence.isEmpty {
                let names = presence.map { TextSanitizer.line($0.name) }
                let nameWidth = min(24, names.map(DisplayWidth.of).max() ?? 4)
                for (peer, name) in zip(presence, names) {
                    let state = peer.online ? "online " : "offline"
                    let seen = peer.lastSeen.map { " · seen " + HumanOutput.timestamps.short($0) } ?? ""
                    let trust = peer.trust.map { $0 == .unverified ? "" : "  " + $0.rawValue } ?? ""
                    let address = peer.address.map(TextSanitizer.line) ?? "no address"
                    Console.out(
                        Style.bold(DisplayWidth.pad(name, to: nameWidth)) + "  " + state + trust + "  "
                            + Style.dim(address + seen) + "  " + Style.dim(peer.id.fingerprint))
                    if let devices = peer.devices {
                        let each = devices.map { device in
                            (device.name.map(TextSanitizer.line) ?? "first device") + " "
                                + device.id.fingerprint.prefix(9) + (device.online ? " online" : "")
                        }
                        Console.out(Style.dim("   \(devices.count) devices: " + each.joined(separator: ", ")))
                    }
                    if let warning = peer.warning { Console.out("   ⚠ " + TextSanitizer.line(warning)) }
                    if let notice = peer.protocolNotice { Console.out("   ⚠ " + TextSanitizer.line(notice)) }
                }
                return
            }
            guard !peers.isEmpty else {
                Console.out("No peers yet — add one with \"confab peers add KEY --name NAME\" (see \"confab whoami\").")
                return
            }
            let names = peers.map { TextSanitizer.line($0.name) }
            let nameWidth = min(24, names.map(DisplayWidth.of).max() ?? 4)
            for (peer, name) in zip(peers, names) {
                let trust = peer.trust == .unverified ? "" : "  " + peer.trust.rawValue
                Console.out(
                    Style.bold(DisplayWidth.pad(name, to: nameWidth)) + "  " + peer.id.shortHex + "  "
                        + Style.dim(peer.id.fingerprint) + trust)
                if let warning = peer.warning { Console.out("   ⚠ " + TextSanitizer.line(warning)) }
            }
        }
    }

    struct AddPeer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a peer by its key (from their \"confab whoami\"), or rename a known one.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "The peer's key: 64 hex characters.")
        var key: String

        @Option(help: "The name you will call them by.")
        var name: String

        func validate() throws {
            guard let id = NodeID(hex: key.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("\"\(key)\" is not a key: a key is 64 hex characters (see \"confab whoami\")")
            }
            guard (try? id.signingKey.curve25519()) != nil else {
                throw ValidationError("\"\(key)\" is not a valid Confab key; check it for typos")
            }
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("--name must not be empty")
            }
            if let refusal = DisplayName.keyLikeRefusal(name) { throw ValidationError(refusal) }
        }

        func run() async throws {
            let node = try global.open()
            let id = NodeID(hex: key.trimmingCharacters(in: .whitespaces))!
            // Refused when another key has the name here, or one that looks the same.
            let peer = try await node.messenger().perform(Operations.AddPeer(id, name: name))
            if output.json {
                try JSONOutput.print(JSONOutput.peer(peer))
                return
            }
            let name = TextSanitizer.line(peer.name)
            Console.out("Added \(name) (\(peer.id.shortHex)). Say hi: confab send \(name) \"hi\"")
        }
    }
}
