import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode

extension Confab {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the running node: address, sessions, messages waiting to be sent.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let local = try global.open()
            if !output.json, let removal = try local.store.myDeviceRemoval() {
                Console.out("⚠ " + TextSanitizer.line(removal.message))
            }
            let status: NodeStatus
            do {
                status = try await local.messenger().status()
            } catch let error as ClientError where error.isNotRunning {
                let waiting = try local.store.outboxCount()
                if output.json {
                    try JSONOutput.print(Offline(running: false, outbox: waiting))
                    return
                }
                Console.out("Offline — no node is running for \(global.directory.path) (start one with \"confab up\").")
                Console.out("\(waiting) entr\(waiting == 1 ? "y" : "ies") waiting to be sent.")
                return
            }
            if output.json {
                try JSONOutput.print(status)
                return
            }
            Console.out(
                "\(Style.bold(TextSanitizer.line(status.name))) (\(status.id.shortHex)) · \(status.role) · "
                    + "listening on \(status.listen)")
            if let web = status.web { Console.out("Web app: \(web) (confab open signs a browser in)") }
            Console.out(
                status.sessions.isEmpty
                    ? "Offline — messages will be sent when a peer is reachable"
                    : "Online · \(status.sessions.count) peer\(status.sessions.count == 1 ? "" : "s")")
            // Peers' names and addresses come from the network.
            for session in status.sessions {
                let name = TextSanitizer.line(session.name)
                let address = Style.dim(TextSanitizer.line(session.address))
                Console.out("   \(name)  \(address)\(session.initiator ? "" : Style.dim(" (incoming)"))")
            }
            // Names in them come from the network.
            for notice in status.versionNotices ?? [] { Console.out("⚠ " + TextSanitizer.line(notice)) }
            Console.out("\(status.outbox) entr\(status.outbox == 1 ? "y" : "ies") waiting to be sent.")
            let traffic = status.traffic
            if traffic.entriesReceived > 0 {
                Console.out(
                    "Received \(traffic.entriesReceived) entries from peers, \(traffic.duplicatesReceived) of them copies "
                        + "already held; \(Int(traffic.bytesPerEntryStored.rounded())) bytes per entry stored.")
            }
            if status.discovery {
                // Interface names come from this machine, but are shown as text all the same.
                let targets = status.beacons.targets.map(TextSanitizer.line)
                Console.out(
                    targets.isEmpty
                        ? "Discovery: no interface to send beacons on — run \"confab doctor\""
                        : "Discovery: beacons to \(targets.joined(separator: ", "))")
                for skipped in status.beacons.skipped {
                    Console.out(Style.dim("   no beacons on \(TextSanitizer.line(skipped))"))
                }
            }
            if status.outstanding > 0 {
                Console.out(
                    "Syncing: \(status.outstanding) entr\(status.outstanding == 1 ? "y" : "ies") still to receive.")
            }
        }

        /// `status --json` with no node: the same `running` field as a running node's status.
        struct Offline: Encodable {
            let running: Bool
            let outbox: Int
        }
    }
}
