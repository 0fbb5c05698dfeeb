/// Why the web app could not be set up, in words for the person who started the node.
public struct WebError: Error, CustomStringConvertible, Equatable {
    private enum Reason: Equatable {
        case badAddress(String)
        case needsPassword(String)
        case passwordFile(path: String, reason: String)
        case token(path: String, reason: String)
    }

    private let reason: Reason

    static func badAddress(_ address: String) -> Self { Self(reason: .badAddress(address)) }
    static func needsPassword(_ address: String) -> Self { Self(reason: .needsPassword(address)) }
    static func passwordFile(_ path: String, _ reason: String) -> Self {
        Self(reason: .passwordFile(path: path, reason: reason))
    }
    static func token(_ path: String, _ reason: String) -> Self { Self(reason: .token(path: path, reason: reason)) }

    public var description: String {
        switch reason {
        case .badAddress(let address):
            "--web \(address) is not an address to serve the web app on: give HOST:PORT, such as 127.0.0.1:7462"
        case .needsPassword(let address):
            """
            --web \(address) would let other machines reach the web app: serving it beyond this machine \
            needs a password (--web-password-file FILE, mode 0600), or serve it on 127.0.0.1
            """
        case .passwordFile(let path, let reason):
            "cannot read the web password file \(path): \(reason) — put the password on its first line, mode 0600"
        case .token(let path, let reason):
            "cannot read or write the web app's login token \(path): \(reason) — remove it; a new one is made"
        }
    }
}
