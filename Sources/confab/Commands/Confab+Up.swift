import ArgumentParser
import ConfabClient
import ConfabNode
import ConfabWeb
import ConfabWire
import Foundation
import Logging

extension Confab {
    struct Up: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run this machine's node in the foreground: find peers, sync, deliver.",
            discussion: """
                Logs go to standard error. SIGINT or SIGTERM stops it cleanly. While it runs, \
                other confab commands (send, watch, status, peers) talk to it through its \
                control socket in the data directory, and it serves the web app on \
                http://127.0.0.1:7462/ (confab open signs a browser in). On a machine with no \
                identity yet, it first serves only a page there that asks your name, then starts.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var network: NetworkOptions
        @OptionGroup var operations: OperationsOptions
        @OptionGroup var webOptions: WebOptions

        func run() async throws {
            try await NodeRunner.run(
                global: global, network: network, operations: operations, role: .person,
                frontEnds: try webOptions.frontEnds())
        }
    }
}

/// Runs a node until SIGINT or SIGTERM, then stops it cleanly.
enum NodeRunner {
    static func run(
        global: GlobalOptions, network: NetworkOptions, operations: OperationsOptions, role: ConfabWire.NodeRole,
        relay: RelayConfiguration? = nil, identityName: String? = nil, frontEnds: [any NodeFrontEnd] = []
    ) async throws {
        let level = Logger.Level(rawValue: network.logLevel) ?? .info
        let format = operations.logFormat
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            case .json:
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        }
        var options = try network.nodeOptions(directory: global.directory, role: role)
        options.relay = relay
        options.metricsAddress = operations.metrics
        options.frontEnds = frontEnds
        // A relay is started by a service manager on an empty state directory: it makes its
        // own identity rather than asking for "confab init".
        var local: Profile?
        if let identityName, !IdentityFile.exists(at: global.directory.identityFile) {
            let created = try Profile.initialize(global.directory, name: identityName)
            options.logger.notice(
                "created relay identity \(created.me.hex) in \(global.directory.path)",
                metadata: ["event": "identity_created"])
            local = created
        }
        // A person's node with no identity yet: the web app asks for the name first (the
        // terminal's first run, in the browser), then the node starts on the same address.
        if local == nil, role == .person, !IdentityFile.exists(at: global.directory.identityFile),
            let web = frontEnds.lazy.compactMap({ $0 as? WebFrontEnd }).first
        {
            let logger = options.logger
            let directory = global.directory
            let linking = WebFirstRun.Linking(
                deviceName: DeviceJoin.hostDeviceName,
                discovery: network.noDiscovery ? nil : LinkDiscovery(port: network.discoveryPort))
            let welcome = try await WebFirstRun.welcome(
                configuration: web.configuration, directory: directory, suggested: Confab.Init.loginName,
                linking: linking, logger: logger
            ) { link in
                logger.notice(
                    "no identity in \(directory.path) yet: choose your name in the web app — open \(link) (confab open does), or stop and run confab init --name NAME",
                    metadata: ["event": "first_run"])
            }
            switch welcome {
            case .name(let name):
                local = try Profile.initialize(directory, name: name)
                logger.notice(
                    "created identity \(local!.me.hex) (\(name)) in \(directory.path)",
                    metadata: ["event": "identity_created"])
            case .linked(let linked):
                local = linked.profile
                // The link may have brought the person's private network: the node joins it.
                let frontEnds = options.frontEnds
                options = try network.nodeOptions(directory: directory, role: role)
                options.relay = relay
                options.metricsAddress = operations.metrics
                options.frontEnds = frontEnds
                logger.notice(
                    "linked this machine (\(linked.profile.me.hex)) to \(linked.personName) (\(linked.person.hex)) in \(directory.path)",
                    metadata: ["event": "identity_linked"])
            }
        }
        let node = try Node(options: options, local: local)
        try await node.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        // Nothing runs after this: the store's log goes, and deleted words with it. The node
        // stopped cleanly either way; a log left behind is scrubbed at the next start.
        do {
            try node.local.store.closeDatabase()
        } catch {
            options.logger.warning("could not close the store: \(error); its log stays until the next start")
        }
    }
}
