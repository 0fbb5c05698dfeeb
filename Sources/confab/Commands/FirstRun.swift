import ConfabClient
import ConfabModel
import ConfabNode
import ConfabTUI
import ConfabWire
import Foundation

/// The first `confab` or `confab chat` on a machine: no identity yet, so ask for a display
/// name (Enter keeps the login name) and create one, instead of sending people to `init`;
/// or, given the code `confab devices link` shows on the person's other machine, link this
/// one to their devices as `confab init --link` does. A name that could be taken for a key
/// is refused and asked for again; an answer that could be a name or a code is asked about.
enum FirstRun {
    /// `discovery` is where the offer's beacons are listened for; nil with discovery off,
    /// when only the address the person types is dialled.
    static func ensureIdentity(_ directory: DataDirectory, discovery: LinkDiscovery?) async throws -> Profile {
        if IdentityFile.exists(at: directory.identityFile) { return try Profile.open(directory) }
        switch try ask() {
        case .name(let name):
            let node = try Profile.initialize(directory, name: name)
            Console.out(
                """
                Created your identity "\(try node.displayName())" in \(directory.path).
                Your key (give it to the people you talk to): \(node.me.hex)
                """)
            return node
        case .code(let code):
            let joining = try DeviceJoin(directory: directory, code: code, deviceName: DeviceJoin.hostDeviceName)
            let linked = try await joining.run(DeviceJoin.Location(discovery: discovery, asksAddress: true))
            Console.out(
                """
                Linked this machine, \(joining.join.deviceName) (\(linked.profile.me.shortHex)), to \(linked.personName) \
                (\(linked.person.shortHex)) in \(directory.path).
                Your conversations arrive from your other devices.
                """)
            return linked.profile
        }
    }

    enum Answer: Equatable {
        case name(String)
        case code(LinkCode)
    }

    private static func ask() throws -> Answer {
        let login = Confab.Init.loginName
        var prompt =
            "Welcome to Confab.\nUsing Confab on another machine already? Run \"confab devices link\" there and "
            + "type the code it shows instead of a name.\nYour display name (Enter for \"\(login)\"): "
        var refused = false
        while true {
            StandardStreams.out(prompt)
            prompt = "Your display name, or the code from \"confab devices link\" (Enter for \"\(login)\"): "
            let line = readLine()
            // End of input keeps the login name, unless the person was already asked again:
            // then nothing they accepted is left to use.
            if line == nil, refused {
                throw CLIError("no display name given; run \"confab init --name NAME\" to choose one")
            }
            let answer = line?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if answer.isEmpty { return .name(login) }
            switch LinkCodeReading(answer) {
            case .code(let code):
                return .code(code)
            case .mistyped(let problem):
                Console.err(
                    "\"\(answer)\" looks like a link code but is not one: \(problem). Type the code as "
                        + "\"confab devices link\" shows it, or a display name (\"confab init --name\" takes a name "
                        + "of this shape)")
                refused = true
                continue
            case .ambiguous(let code, let problem):
                StandardStreams.out(
                    "\"\(answer)\" could be a name or a link code. Is it the code \"confab devices link\" shows on "
                        + "your other machine? [y/N] ")
                let yes = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
                if yes == "y" || yes == "yes" {
                    if let code { return .code(code) }
                    Console.err("\"\(answer)\" is not a link code: \(problem)")
                    refused = true
                    continue
                }
            case .name:
                break
            }
            guard let refusal = DisplayName.keyLikeRefusal(answer) else { return .name(answer) }
            Console.err(refusal)
            refused = true
        }
    }
}
