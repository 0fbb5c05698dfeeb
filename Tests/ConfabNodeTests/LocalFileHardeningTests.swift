import ConfabClient
import ConfabCrypto
import ConfabTestSupport
import ConfabWire
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
        // The network key is a secret too.
        let realNetwork = dir.appendingPathComponent("elsewhere-network.key")
        try NetworkKeyFile.save(NetworkKey.random(), to: realNetwork)
        let network = dir.appendingPathComponent("network.key")
        #expect(symlink(realNetwork.path, network.path) == 0)
        let error = #expect(throws: NetworkKeyError.self) { try NetworkKeyFile.load(from: network) }
        #expect(error?.description.contains("not a regular file") == true)
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

    @Test func savingANetworkKeyReplacesTheOldOneAndLeavesNothingBehind() throws {
        let dir = try directory()
        let file = dir.appendingPathComponent("network.key")
        try NetworkKeyFile.save(NetworkKey.random(), to: file)
        let second = NetworkKey.random()
        try NetworkKeyFile.save(second, to: file)
        #expect(try NetworkKeyFile.load(from: file) == second)
        var info = stat()
        #expect(stat(file.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["network.key"])
    }

    /// The error is the failing call's own, not that of the cleanup after it. A directory
    /// in the key's place stops even root, which the test runs as in CI.
    @Test func aFailedReplaceReportsTheRealError() throws {
        let dir = try directory()
        let file = dir.appendingPathComponent("network.key")
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
        let error = #expect(throws: NetworkKeyError.self) { try NetworkKeyFile.save(NetworkKey.random(), to: file) }
        #expect(
            error?.description == "cannot write network key file \(file.path): \(String(cString: strerror(EISDIR)))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["network.key"])
    }

    @Test func aFailedCreateReportsTheRealError() throws {
        let key = try directory().appendingPathComponent("missing/identity.key")
        let error = #expect(throws: IdentityError.self) { try IdentityFile.create(SigningKeyPair.generate(), at: key) }
        #expect(error?.description == "cannot write key file \(key.path): \(String(cString: strerror(ENOENT)))")
    }

    /// Only root can hand a file to another user, so elsewhere there is nothing to check.
    @Test(.enabled(if: getuid() == 0)) func keyFilesOwnedByAnotherUserAreRefused() throws {
        let dir = try directory()
        let identity = dir.appendingPathComponent("identity.key")
        let network = dir.appendingPathComponent("network.key")
        try IdentityFile.create(SigningKeyPair.generate(), at: identity)
        try NetworkKeyFile.save(NetworkKey.random(), to: network)
        #expect(chown(identity.path, 65534, 65534) == 0)
        #expect(chown(network.path, 65534, 65534) == 0)
        let identityError = #expect(throws: IdentityError.self) { try IdentityFile.load(from: identity) }
        #expect(identityError?.description.hasSuffix("owned by another user") == true)
        let networkError = #expect(throws: NetworkKeyError.self) { try NetworkKeyFile.load(from: network) }
        #expect(networkError?.description.hasSuffix("owned by another user") == true)
    }

    @Test func aSecretLargerThanItsLimitIsRefused() throws {
        let file = try directory().appendingPathComponent("big.key")
        try SecretFile.save([UInt8](repeating: 0x61, count: 2000), to: file, replacing: false)
        #expect(throws: SecretFile.Failure.tooLarge(limit: 1024)) { try SecretFile.load(from: file, maxBytes: 1024) }
        #expect(try SecretFile.load(from: file, maxBytes: 2000).count == 2000)
    }

    /// Protocol.md §2: a key file of up to 4,096 bytes is read (anything after the two
    /// lines is ignored), a larger one is refused.
    @Test func aKeyFileOfExactly4096BytesIsReadAndOneByteMoreIsRefused() throws {
        let dir = try directory()
        let keys = SigningKeyPair.generate()
        var seed = keys.seed.unsafeCopy
        defer { seed.wipe() }
        let lines = Array("confab-identity-v1\n\(Hex.encode(seed))\n".utf8)
        for (name, size) in [("exact.key", 4096), ("over.key", 4097)] {
            let file = dir.appendingPathComponent(name)
            try SecretFile.save(lines + [UInt8](repeating: 0x20, count: size - lines.count), to: file, replacing: false)
            var info = stat()
            #expect(stat(file.path, &info) == 0 && info.st_size == size)
        }
        #expect(try IdentityFile.load(from: dir.appendingPathComponent("exact.key")).publicKey == keys.publicKey)
        #expect(throws: IdentityError.self) { try IdentityFile.load(from: dir.appendingPathComponent("over.key")) }
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
