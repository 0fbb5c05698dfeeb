import ConfabNode
import Foundation

/// The first `confab` or `confab chat` on a machine: no identity yet, so ask for a display
/// name (Enter keeps the login name) and create one, instead of sending people to `init`.
enum FirstRun {
    static func ensureIdentity(_ directory: DataDirectory) throws -> LocalNode {
        if IdentityFile.exists(at: directory.identityFile) { return try LocalNode.open(directory) }
        let login = Confab.Init.loginName
        FileHandle.standardOutput.write(
            Data("Welcome to Confab. Your display name (Enter for \"\(login)\"): ".utf8))
        let answer = readLine()?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let node = try LocalNode.initialize(directory, name: answer.isEmpty ? login : answer)
        Console.out(
            """
            Created your identity "\(try node.displayName())" in \(directory.path).
            Your key (give it to the people you talk to): \(node.me.hex)
            """)
        return node
    }
}
