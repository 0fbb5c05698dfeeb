import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import Foundation

extension Confab {
    struct Relay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a headless relay: store and forward every conversation for people who are away.",
            discussion: """
                A relay announces itself as one, takes every conversation its peers offer within \
                the network (it cannot read them: they are end-to-end encrypted) and gives each \
                participant what concerns it, so a message reaches someone who was offline when \
                it was sent. It never reads or acknowledges messages itself. On first start it \
                creates its own identity in the data directory. Logs go to standard error; \
                SIGINT or SIGTERM stops it cleanly.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var network: NetworkOptions
        @OptionGroup var operations: OperationsOptions

        @Option(
            help: "Whom to serve: any (every node of the network) or known (only --allow keys and peers added by hand)."
        )
        var accept: RelayConfiguration.Accept = .any

        @Option(
            name: .customLong("allow"),
            help: ArgumentHelp("A key to serve under --accept known (repeatable).", valueName: "KEY"))
        var allowed: [String] = []

        @Option(
            help: ArgumentHelp(
                "Storage quota for entries, e.g. 500MB or 2GiB; beyond it new entries are refused (unknown senders first).",
                valueName: "SIZE"))
        var quota: String?

        @Option(
            help: ArgumentHelp(
                "Entries per second each peer may send (e.g. 100 or 100/s); faster peers are slowed down.",
                valueName: "ENTRIES/s"))
        var rate: String?

        @Option(
            help: ArgumentHelp(
                "Entries a peer may send at once before --rate applies (default: max(rate, 256)).", valueName: "N"))
        var burst: Int?

        @Option(help: "The relay's display name, used when it creates its identity.")
        var name = "relay"

        func validate() throws {
            for key in allowed where NodeID(hex: key) == nil {
                throw ValidationError("--allow \(key): a key is 64 hex characters (as \"confab whoami\" prints it)")
            }
            if let quota, (ByteSize.parse(quota) ?? 0) <= 0 {
                throw ValidationError("--quota \(quota): give a size such as 500MB, 2GiB or a number of bytes")
            }
            if let rate, (Self.parseRate(rate) ?? 0) <= 0 {
                throw ValidationError("--rate \(rate): give entries per second, such as 100 or 100/s")
            }
            if let burst, burst < 1 { throw ValidationError("--burst must be at least 1") }
            if burst != nil, rate == nil { throw ValidationError("--burst needs --rate") }
            if accept == .any, !allowed.isEmpty {
                throw ValidationError("--allow is only used with --accept known")
            }
        }

        static func parseRate(_ text: String) -> Double? {
            var text = text.lowercased()
            if text.hasSuffix("/s") { text.removeLast(2) }
            return Double(text).flatMap { $0.isFinite ? $0 : nil }
        }

        var relayConfiguration: RelayConfiguration {
            var configuration = RelayConfiguration()
            configuration.accept = accept
            configuration.allow = Set(allowed.compactMap { NodeID(hex: $0) })
            configuration.quotaBytes = quota.flatMap(ByteSize.parse)
            configuration.entriesPerSecond = rate.flatMap(Self.parseRate)
            configuration.burst = burst.map(Double.init)
            return configuration
        }

        func run() async throws {
            try await NodeRunner.run(
                global: global, network: network, operations: operations, role: .relay,
                relay: relayConfiguration, identityName: name)
        }
    }
}

extension RelayConfiguration.Accept: ExpressibleByArgument {}
