import CLibFuzzerDriver
import ConfabCrypto

// Fixed identities and ephemeral keys, so each message position has a known valid
// predecessor. Raw inputs probe the length and HMAC checks; the "authenticated" and "boxed"
// forms wrap fuzzer bytes so they pass the outer check and reach the key, box and
// signature handling behind it.
private let networkKey = [UInt8](repeating: 0xa5, count: 32)
private let zeroNonce = [UInt8](repeating: 0, count: SecretBox.nonceLength)
private let clientKeys = try! SigningKeyPair(seed: [UInt8](repeating: 0x01, count: 32))
private let serverKeys = try! SigningKeyPair(seed: [UInt8](repeating: 0x02, count: 32))
private let clientEphemeral = try! Curve25519KeyPair(secretKey: [UInt8](repeating: 0x03, count: 32))
private let serverEphemeral = try! Curve25519KeyPair(secretKey: [UInt8](repeating: 0x04, count: 32))

private func makeClient() -> SecretHandshakeClient {
    try! SecretHandshakeClient(
        networkKey: networkKey, keyPair: clientKeys, serverPublicKey: serverKeys.publicKey,
        ephemeralKeyPair: clientEphemeral)
}

private func makeServer() -> SecretHandshakeServer {
    try! SecretHandshakeServer(networkKey: networkKey, keyPair: serverKeys, ephemeralKeyPair: serverEphemeral)
}

private func challenge(for ephemeralKey: [UInt8]) -> [UInt8] {
    try! HMAC.authenticate(ephemeralKey, key: networkKey) + ephemeralKey
}

private let message1 = makeClient().challenge
private let message2: [UInt8] = {
    var server = makeServer()
    return try! server.receiveClientChallenge(message1)
}()

/// The box keys of messages 3 and 4 for the fixed keys, rebuilt from public primitives.
private let boxKeys: (auth: SecureBytes, accept: SecureBytes) = {
    let ab = try! ScalarMult.sharedSecret(secretKey: clientEphemeral.secretKey, publicKey: serverEphemeral.publicKey)
    let aB = try! ScalarMult.sharedSecret(
        secretKey: clientEphemeral.secretKey, publicKey: serverKeys.publicKey.curve25519())
    let sharedAb = try! ScalarMult.sharedSecret(
        secretKey: clientKeys.curve25519SecretKey(), publicKey: serverEphemeral.publicKey)
    let auth = SecureBytes(Hash.sha256(networkKey + ab.unsafeCopy + aB.unsafeCopy))
    let accept = SecureBytes(Hash.sha256(networkKey + ab.unsafeCopy + aB.unsafeCopy + sharedAb.unsafeCopy))
    return (auth, accept)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))

    // Raw bytes at each of the four parsing steps.
    var server1 = makeServer()
    _ = try? server1.receiveClientChallenge(input)
    var client2 = makeClient()
    _ = try? client2.receiveServerChallenge(input)
    var server3 = makeServer()
    _ = try! server3.receiveClientChallenge(message1)
    _ = try? server3.receiveClientAuth(input)
    var client4 = makeClient()
    _ = try! client4.receiveServerChallenge(message2)
    _ = try? client4.receiveServerAccept(input)

    // Authenticated challenges carrying an arbitrary ephemeral key.
    if input.count >= 32 {
        let forged = challenge(for: Array(input.prefix(32)))
        var server = makeServer()
        _ = try? server.receiveClientChallenge(forged)
        var client = makeClient()
        _ = try? client.receiveServerChallenge(forged)
    }

    // Message 3 boxed correctly around arbitrary `signature ‖ public key` bytes. Accepting
    // it would mean a forged signature, unless the bytes are the real client's.
    if input.count >= 96 {
        let plaintext = Array(input.prefix(96))
        var server = makeServer()
        _ = try! server.receiveClientChallenge(message1)
        if let result = try? server.receiveClientAuth(SecretBox.seal(plaintext, nonce: zeroNonce, key: boxKeys.auth)) {
            precondition(
                result.outcome.remotePublicKey.bytes == Array(plaintext.suffix(32)), "accepted identity differs")
        }
    }

    // Message 4 boxed correctly around an arbitrary signature: must be refused.
    if input.count >= 64 {
        var client = makeClient()
        _ = try! client.receiveServerChallenge(message2)
        let boxed = try! SecretBox.seal(Array(input.prefix(64)), nonce: zeroNonce, key: boxKeys.accept)
        precondition((try? client.receiveServerAccept(boxed)) == nil, "forged server signature accepted")
    }
    return 0
}

/// SwiftPM links each executable with `main` aliased to `<target>_main`, which would
/// otherwise be missing here (no top-level code); it starts libFuzzer's driver.
@_cdecl("FuzzHandshake_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    confab_run_libfuzzer(argc, argv)
}
