import ConfabClient
import ConfabModel
import ConfabNode
import ConfabTUI
import Foundation

/// The first `confab` or `confab chat` on a machine: no identity yet, so ask for a display
/// name (Enter keeps the login name) and create one, instead of sending people to `init`.
/// A name that could be taken for a key is refused and asked for again.
enum FirstRun {
    static func ensureIdentity(_ directory: DataDirectory) throws -> Profile {
        if IdentityFile.exists(at: directory.identityFile) { return try Profile.open(directory) }
        let node = try Profile.initialize(directory, name: try askName())
        Console.out(
            """
            Created your identity "\(try node.displayName())" in \(directory.path).
            Your key (give it to the people you talk to): \(node.me.hex)
            """)
        return node
    }

    private static func askName() throws -> String {
        let login = Confab.Init.loginName
        var prompt = "Welcome to Confab. Your display name (Enter for \"\(login)\"): "
        var refused = false
        while true {
            StandardStreams.out(prompt)
            let line = readLine()
            // End of input keeps the login name, unless the person was already asked again:
            // then nothing they accepted is left to use.
            if line == nil, refused {
                throw CLIError("no display name given; run \"confab init --name NAME\" to choose one")
            }
            let answer = line?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let name = answer.isEmpty ? login : answer
            guard let refusal = DisplayName.keyLikeRefusal(name) else { return name }
            Console.err(refusal)
            prompt = "Your display name (Enter for \"\(login)\"): "
            refused = true
        }
    }
}
