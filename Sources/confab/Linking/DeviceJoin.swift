import ConfabClient
import ConfabModel
import ConfabNode
import ConfabTUI
import ConfabWire
import Foundation

/// The new machine's side of a link (Protocol.md §20.10), as `confab init --link` and the
/// chat's first run both run it: find the offer, show the words, ask y/N, and write the data
/// directory only once the grant checks.
struct DeviceJoin {
    /// Where the offer is looked for.
    struct Location {
        /// Given (`--peer HOST:PORT`): only this is dialled.
        var address: HostPort?
        /// The offer's beacons are listened for first; nil with discovery off.
        var discovery: LinkDiscovery?
        /// When the beacons find nothing, or an address cannot be reached, the person is
        /// asked for the address `devices link` prints, until they give none.
        var asksAddress = false
    }

    let directory: DataDirectory
    let join: LinkJoin

    init(directory: DataDirectory, code: LinkCode, deviceName: String) throws {
        self.directory = directory
        do {
            join = try LinkJoin(code: code, deviceName: deviceName)
        } catch {
            throw CLIError(error.description)
        }
    }

    /// The host name, cleaned into a device name; "device" when it makes none.
    static var hostDeviceName: String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? ""
        let cleaned = DisplayName.cleaned(String(host.prefix(Limits.maxNameBytes)))
        guard !cleaned.isEmpty, DisplayName.keyLikeRefusal(cleaned) == nil else { return "device" }
        return cleaned
    }

    func run(_ location: Location) async throws -> LinkJoin.Linked {
        var address = location.address
        var failure: LinkFailure?
        if address == nil, let discovery = location.discovery {
            Console.out("Looking for the offer on the LAN…")
            do {
                address = try await join.find(discovery: discovery)
            } catch {
                guard location.asksAddress else { throw CLIError(error.description) }
                Console.err(error.description)
                failure = error
            }
        }
        while true {
            let dialled: HostPort
            if let address {
                dialled = address
            } else {
                guard location.asksAddress, let typed = Self.askAddress() else {
                    throw CLIError(failure?.description ?? Self.noAddress(location))
                }
                dialled = typed
            }
            do {
                return try await join.run(
                    host: dialled.host, port: dialled.port,
                    events: { event in
                        if case .connecting(let host, let port) = event {
                            Console.out("Connecting to the offer at \(host):\(port)…")
                        }
                    },
                    confirm: { prompt in
                        Console.out("Words: \(prompt.words.joined(separator: " "))")
                        return await YesNoQuestion.ask("Do these words match the other machine? [y/N] ")
                    },
                    write: join.writer(directory))
            } catch {
                guard error.kind == .unreachable, location.asksAddress else { throw CLIError(error.description) }
                Console.err(error.description)
                failure = error
                address = nil
            }
        }
    }

    /// What ends a join whose offer was never looked for: discovery off and no address.
    private static func noAddress(_ location: Location) -> String {
        "no address for the offer was given, and beacons are off here, so nothing was linked. Run again and "
            + "give the address (HOST:PORT) \"confab devices link\" prints; without --no-discovery the offer "
            + "is found by its beacons (UDP port \(location.discovery?.port ?? HostPort.defaultDiscoveryPort)) "
            + "unless a firewall blocks them: \"confab doctor\" checks that"
    }

    /// The offer's address as the person types it; nil when they give none.
    private static func askAddress() -> HostPort? {
        while true {
            StandardStreams.out(
                "The other machine's address, as \"confab devices link\" prints it after --peer (HOST:PORT; "
                    + "Enter to stop): ")
            guard let line = readLine()?.trimmingCharacters(in: .whitespaces), !line.isEmpty else { return nil }
            if let address = try? HostPort(line) { return address }
            Console.err("\"\(line)\" is not HOST:PORT, like 192.168.1.20:50123")
        }
    }
}
