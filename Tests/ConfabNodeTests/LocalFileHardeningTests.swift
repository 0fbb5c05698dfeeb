import ConfabCrypto
import ConfabTestSupport
import Foundation
import Testing

@testable import ConfabNode

#if canImport(Glibc)
import Glibc
#endif

/// L4: files in the data directory are opened as what they claim to be, and the directory
/// itself is private.
@Suite struct LocalFileHardeningTests {
    func directory() throws -> URL { try ConfabBinary.temporaryDirectory("confab-files") }

    @Test func aKeyFileThatIsALinkIsRefused() throws {
        let dir = try directory()
        let real = dir.appendingPathComponent("elsewhere.key")
        try IdentityFile.create(SigningKeyPair.generate(), at: real)
        let key = dir.appendingPathComponent("identity.key")
        #expect(symlink(real.path, key.path) == 0)
        #expect(throws: IdentityError.self) { try IdentityFile.load(from: key) }
    }

    @Test func creatingAKeyNeverReplacesOne() throws {
        let dir = try directory()
        let key = dir.appendingPathComponent("identity.key")
        let first = SigningKeyPair.generate()
        try IdentityFile.create(first, at: key)
        #expect(throws: IdentityError.self) { try IdentityFile.create(SigningKeyPair.generate(), at: key) }
        #expect(try IdentityFile.load(from: key).publicKey == first.publicKey)
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["identity.key"])
    }

    @Test func anOpenDataDirectoryIsMadePrivate() throws {
        let dir = try directory().appendingPathComponent("data")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        #expect(chmod(dir.path, 0o777) == 0)
        try DataDirectory(url: dir).create()
        var info = stat()
        #expect(stat(dir.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
    }
}
