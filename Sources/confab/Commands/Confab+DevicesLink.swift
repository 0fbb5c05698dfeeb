import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import Foundation

extension Confab {
    struct DevicesLink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "link",
            abstract: "Offer a one-time code that adds a new machine to your devices.",
            discussion: """
                Run "confab init --link CODE" on the new machine. Both machines then show five \
                words: answer y on each only if they are the same. The offer ends after a link, \
                after --timeout, after 3 wrong codes, or when either side answers no.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: "TCP port to listen on (default: any free port).")
        var port = 0

        @Option(help: "How long the offer stays open, in seconds.")
        var timeout = 300

        @Flag(help: "Do not announce the offer with beacons (the new machine then needs --peer).")
        var noDiscovery = false

        @Option(help: "UDP port for the offer's beacons (the port the nodes' discovery uses).")
        var discoveryPort = HostPort.defaultDiscoveryPort

        @Option(help: ArgumentHelp("Network key, as for \"confab up\".", valueName: "KEY"))
        var networkKey: String?

        @Flag(help: "Do not draw the QR code of the command to run (drawn only on a terminal).")
        var noQR = false

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be 0–65535") }
            guard (1...3600).contains(timeout) else { throw ValidationError("--timeout must be 1–3600 seconds") }
            guard (1...65535).contains(discoveryPort) else { throw ValidationError("--discovery-port must be 1–65535") }
        }

        func run() async throws {
            let node = try global.open()
            let setting = try NetworkKeySetting.resolve(flag: networkKey, directory: global.directory)
            let offer: LinkOffer
            do {
                offer = try LinkOffer(profile: node, networkKey: setting.key)
            } catch {
                throw CLIError(error.description)
            }
            let code = offer.code
            let seconds = timeout
            let noDiscovery = noDiscovery
            let drawsQR = !noQR && Console.stdoutIsTerminal
            let addresses = LinkOffer.localAddresses
            do {
                let linked = try await offer.run(
                    port: port, timeout: .seconds(timeout),
                    discovery: noDiscovery ? nil : LinkDiscovery(port: discoveryPort),
                    events: { event in
                        switch event {
                        case .listening(let port):
                            let peers = (addresses.isEmpty ? ["THIS_MACHINE"] : addresses).map { "\($0):\(port)" }
                            Console.out(
                                """
                                Link code: \(code)   (valid for \(seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"), one use)
                                On the new machine run:
                                  confab init --link \(code) --peer \(peers[0])
                                """)
                            if peers.count > 1 {
                                Console.out("  (or --peer \(peers.dropFirst().joined(separator: ", ")))")
                            }
                            if !noDiscovery { Console.out("  (without --peer it looks for this machine's beacons)") }
                            Console.out(
                                "  (or type the code where the first run of confab, or of its web app, asks for a name)"
                            )
                            // What the new machine runs, for a camera to read instead of a person.
                            if drawsQR, let code = try? QRCode("confab init --link \(code) --peer \(peers[0])") {
                                Console.out(code.terminalLines(colour: true).joined(separator: "\n"))
                            }
                            Console.out("Waiting for the new machine…")
                        case .triedAndFailed(let remaining, _):
                            Console.out("A try with a wrong code failed; \(remaining) more end the offer.")
                        case .connected(let from):
                            Console.out("The new machine connected\(from.map { " from \($0)" } ?? "").")
                        case .words:
                            break
                        }
                    },
                    confirm: { prompt in
                        Console.out(
                            """
                            It asks to be linked as "\(prompt.deviceName)" (\(prompt.device.shortHex)).
                            Words: \(prompt.words.joined(separator: " "))
                            """)
                        return await YesNoQuestion.ask("Do these words match the other machine? [y/N] ")
                    })
                Console.out("Linked \(linked.name) (\(linked.device.shortHex)) to \(linked.person).")
            } catch {
                throw CLIError(error.description)
            }
        }
    }
}
