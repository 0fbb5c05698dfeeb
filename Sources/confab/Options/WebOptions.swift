import ArgumentParser
import ConfabClient
import ConfabNode
import ConfabWeb
import Foundation

/// Where the node serves the web app: `up` and `chat` (which runs a node) share these.
struct WebOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Serve the web app at http://HOST:PORT/ (default 127.0.0.1:7462; anything but loopback needs --web-password-file).",
            valueName: "HOST:PORT"))
    var web: String?

    @Flag(help: "Serve no web app.")
    var noWeb = false

    @Option(
        help: ArgumentHelp(
            "A file (mode 0600) whose first line is the password the web app's login asks for.", valueName: "FILE"))
    var webPasswordFile: String?

    func validate() throws {
        if noWeb, web != nil || webPasswordFile != nil {
            throw ValidationError("--no-web serves no web app: leave out --web and --web-password-file")
        }
    }

    /// The web app as a front end of the node, or none with --no-web.
    func frontEnds() throws -> [any NodeFrontEnd] {
        guard !noWeb else { return [] }
        let password = try webPasswordFile.map(Self.readPassword)
        let configuration =
            try web.map { try WebConfiguration(address: $0, password: password) }
            ?? WebConfiguration(password: password)
        return [WebFrontEnd(configuration: configuration)]
    }

    private static func readPassword(_ path: String) throws -> String {
        do {
            var bytes = try SecretFile.load(from: URL(fileURLWithPath: path), maxBytes: 1024)
            defer { bytes.wipe() }
            let line = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).first ?? ""
            guard !line.isEmpty else {
                throw CLIError("the web password file \(path) is empty: put the password on its first line")
            }
            return String(line)
        } catch let failure as SecretFile.Failure {
            throw CLIError(
                "cannot read the web password file \(path): \(failure.reason) — put the password on its first line, mode 0600"
            )
        }
    }
}
