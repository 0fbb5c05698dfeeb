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

// The states every input starts from, made once: the handshake sides are value types, so
// `var side = template` gives each step its own copy, exactly as a fresh `makeServer()` /
// `makeClient()` (followed by the valid message 1 or 2) would, without redoing per input
// the key conversion, the four X25519 products and the signature those cost. Nothing an
// input does reaches a template, so every execution still starts from the same state.
private let freshServer = makeServer()
private let freshClient = makeClient()
private let serverAfterMessage1: SecretHandshakeServer = {
    var server = freshServer
    _ = try! server.receiveClientChallenge(message1)
    return server
}()
private let clientAfterMessage2: SecretHandshakeClient = {
    var client = freshClient
    _ = try! client.receiveServerChallenge(message2)
    return client
}()

/// The templates (and their key material) are built before the first input, so no input
/// pays for them, and outside LeakSanitizer's view: they live for the whole run, held
/// partly through enum payloads whose tagged pointers it cannot follow.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    confab_leak_check_pause()
    _ = (boxKeys, serverAfterMessage1, clientAfterMessage2)
    confab_leak_check_resume()
    return 0
}

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
    var server1 = freshServer
    _ = try? server1.receiveClientChallenge(input)
    var client2 = freshClient
    _ = try? client2.receiveServerChallenge(input)
    var server3 = serverAfterMessage1
    _ = try? server3.receiveClientAuth(input)
    var client4 = clientAfterMessage2
    _ = try? client4.receiveServerAccept(input)

    // Authenticated challenges carrying an arbitrary ephemeral key.
    if input.count >= 32 {
        let forged = challenge(for: Array(input.prefix(32)))
        var server = freshServer
        _ = try? server.receiveClientChallenge(forged)
        var client = freshClient
        _ = try? client.receiveServerChallenge(forged)
    }

    // Message 3 boxed correctly around arbitrary `signature ‖ public key` bytes. Accepting
    // it would mean a forged signature, unless the bytes are the real client's.
    if input.count >= 96 {
        let plaintext = Array(input.prefix(96))
        var server = serverAfterMessage1
        if let result = try? server.receiveClientAuth(SecretBox.seal(plaintext, nonce: zeroNonce, key: boxKeys.auth)) {
            precondition(
                result.outcome.remotePublicKey.bytes == Array(plaintext.suffix(32)), "accepted identity differs")
        }
    }

    // Message 4 boxed correctly around an arbitrary signature: must be refused.
    if input.count >= 64 {
        var client = clientAfterMessage2
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
