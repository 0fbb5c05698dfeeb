import ArgumentParser
import ConfabNode
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
                control socket in the data directory.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var network: NetworkOptions

        func run() async throws {
            try await NodeRunner.run(global: global, network: network, role: .person)
        }
    }
}

/// Starts a node and its control socket, and stops both on SIGINT/SIGTERM.
enum NodeRunner {
    static func run(global: GlobalOptions, network: NetworkOptions, role: ConfabWire.NodeRole) async throws {
        let level = Logger.Level(rawValue: network.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let options = try network.nodeOptions(directory: global.directory, role: role)
        let node = try Node(options: options)
        try await node.start()
        let signal = await Signals.waitForTermination()
        options.logger.info("signal \(signal): shutting down")
        await node.stop()
    }
}
