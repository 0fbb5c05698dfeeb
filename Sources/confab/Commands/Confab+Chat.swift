import ArgumentParser
import ConfabClient
import ConfabNode
import ConfabTUI
import Foundation
import Logging

extension Confab {
    struct Chat: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open the chat: full screen on a terminal, line by line otherwise.",
            discussion: """
                Runs this machine's node inside the chat, or attaches to the one `confab up` \
                already runs for the data directory. The node's logs go to confab.log in the \
                data directory. With --plain (or when input or output is not a terminal, or \
                TERM=dumb), the chat is plain lines: type /help for its commands.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var network: NetworkOptions
        @OptionGroup var webOptions: WebOptions

        @Flag(help: "Plain lines, no cursor addressing: for screen readers, dumb terminals and logs.")
        var plain = false

        @Option(help: "How a message in a conversation that is not open is announced: bell, desktop, off.")
        var notify: NotificationStyle = .bell

        func run() async throws {
            let directory = global.directory
            let local = try await FirstRun.ensureIdentity(
                directory, discovery: network.noDiscovery ? nil : LinkDiscovery(port: network.discoveryPort))
            let level = Logger.Level(rawValue: network.logLevel) ?? .info
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
            // From here on the node's logs (even the first, about the network key) go to
            // the log file, never onto the chat's screen or between its lines.
            let redirect = try StandardErrorRedirect(to: directory.url.appendingPathComponent("confab.log").path)
            defer { redirect.restore() }
            var options = try network.nodeOptions(directory: directory, role: .person)
            options.frontEnds = try webOptions.frontEnds()
            let capabilities = Terminal.capabilities()
            if !plain, capabilities.fullScreen {
                let signal = try await FullScreenChat.run(
                    local: local, options: options, capabilities: capabilities, notify: notify)
                // Ended by SIGHUP, SIGINT or SIGTERM, in order: the status says which.
                if let signal { throw ExitCode(128 + signal) }
            } else {
                await PlainChatRunner.run(local: local, options: options, notify: notify)
            }
        }
    }
}

extension NotificationStyle: ExpressibleByArgument {}
