import ArgumentParser
import ConfabClient
import ConfabNode
import ConfabWeb
import Foundation

extension Confab {
    struct Open: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open the web app in a browser, signed in.",
            discussion: """
                Asks the running node where it serves the web app and prints a login link. On a \
                desktop (DISPLAY or WAYLAND_DISPLAY set) it opens the link with xdg-open as well. \
                The link signs in the browser that opens it: keep it to yourself.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Flag(help: "Print the link only; open no browser.")
        var print = false

        func run() async throws {
            // `confab up` waiting for the first run's name serves only that page, from here.
            if !IdentityFile.exists(at: global.directory.identityFile),
                let address = try? String(
                    contentsOf: global.directory.url.appendingPathComponent("web-welcome"), encoding: .utf8),
                let token = try LoginToken.load(in: global.directory)
            {
                return try show(address: address, link: token.loginLink(address: address))
            }
            let local = try global.open()
            let status: NodeStatus
            do {
                status = try await local.messenger().status()
            } catch let error as ClientError where error.isNotRunning {
                throw CLIError(
                    "no node is running for \(global.directory.path): start one with \"confab up\" (or \"confab chat\"), then run confab open again"
                )
            }
            guard let address = status.web else {
                throw CLIError(
                    "the node for \(global.directory.path) serves no web app: it was started with --no-web, or its address was taken (its log says which); restart it with --web 127.0.0.1:PORT"
                )
            }
            guard let token = try LoginToken.load(in: global.directory) else {
                throw CLIError("the web app's login token is missing from \(global.directory.path): restart the node")
            }
            try show(address: address, link: token.loginLink(address: address))
        }

        private func show(address: String, link: String) throws {
            if output.json {
                try JSONOutput.print(Link(web: address, login: link))
                return
            }
            Console.out("Confab's web app: \(address)")
            Console.out("Sign in with this link (it is a password: keep it to yourself):")
            Console.out("  \(link)")
            guard !print else { return }
            let environment = ProcessInfo.processInfo.environment
            let desktop =
                environment["DISPLAY"].map { !$0.isEmpty } == true
                || environment["WAYLAND_DISPLAY"].map { !$0.isEmpty } == true
            guard desktop, let opener = Self.findExecutable("xdg-open") else {
                Console.out(
                    "No desktop here to open a browser on: open the link in a browser on this machine, or from another one "
                        + "through ssh -L 7462:127.0.0.1:7462 to this machine.")
                return
            }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: opener)
            process.arguments = [link]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
                Console.out("Opened in your browser.")
            } catch {
                Console.out("Could not start xdg-open (\(error.localizedDescription)): open the link by hand.")
            }
        }

        struct Link: Encodable {
            let web: String
            let login: String
        }

        static func findExecutable(_ name: String) -> String? {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
            for directory in path.split(separator: ":") {
                let candidate = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
            return nil
        }
    }
}
