import ConfabClient
import ConfabCrypto
import Foundation

/// The secret a login link carries: 32 random bytes, kept as hex in `web-token` in the data
/// directory (mode 0600, so only the node's owner can read it and sign in), made the first
/// time the app is served and kept, so a login survives the node's restart. The session
/// cookie holds a key derived from it, never the token itself, and changes when it does.
public struct LoginToken: Sendable {
    public static let fileName = "web-token"

    public let token: String
    let sessionKey: SecureBytes

    public init(token: String) {
        self.token = token
        sessionKey = SecureBytes(Hash.blake2b(Array("confab web session".utf8), key: Array(token.utf8.prefix(64))))
    }

    public static func url(in directory: DataDirectory) -> URL {
        directory.url.appendingPathComponent(fileName)
    }

    /// The token in the data directory, made now if there is none.
    public static func loadOrCreate(in directory: DataDirectory) throws(WebError) -> LoginToken {
        let url = url(in: directory)
        if let existing = try load(in: directory) { return existing }
        let token = Hex.encode(Random.bytes(32))
        do {
            try SecretFile.save(Array(token.utf8), to: url, replacing: false)
        } catch .alreadyExists {
            // Another process made it first: theirs is the one.
            if let existing = try load(in: directory) { return existing }
        } catch {
            throw .token(url.path, error.reason)
        }
        return LoginToken(token: token)
    }

    /// The token, or nil when none was made yet (`confab open` before any node served).
    public static func load(in directory: DataDirectory) throws(WebError) -> LoginToken? {
        let url = url(in: directory)
        do {
            var bytes = try SecretFile.load(from: url, maxBytes: 128)
            defer { bytes.wipe() }
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.count == 64, Hex.decode(text) != nil else { throw WebError.token(url.path, "not a token") }
            return LoginToken(token: text)
        } catch let failure as SecretFile.Failure {
            if failure == .missing { return nil }
            throw .token(url.path, failure.reason)
        } catch let error as WebError {
            throw error
        } catch {
            throw .token(url.path, "\(error)")
        }
    }

    /// What the session cookie holds.
    var cookieValue: String {
        Hex.encode(sessionKey.unsafeCopy)
    }

    /// Whether a cookie's value is this token's, compared in constant time.
    func admits(cookie: String) -> Bool {
        guard cookie.utf8.count == 64, let bytes = Hex.decode(cookie) else { return false }
        return sessionKey.isEqual(to: SecureBytes(bytes))
    }

    /// Whether a login link's token is this one, compared in constant time.
    func matches(_ candidate: String) -> Bool {
        let given = SecureBytes(Hash.blake2b(Array(candidate.utf8)))
        return given.isEqual(to: SecureBytes(Hash.blake2b(Array(token.utf8))))
    }

    /// The link that signs a browser in: the app's address with the token.
    public func loginLink(address: String) -> String {
        address + "login?token=" + token
    }
}
