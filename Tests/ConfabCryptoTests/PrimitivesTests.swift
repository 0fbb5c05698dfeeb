import Testing

@testable import ConfabCrypto

@Suite("Primitives")
struct PrimitivesTests {
    // RFC 8032, section 7.1, test 1.
    static let rfcSeed = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
    static let rfcPublic = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    static let rfcSignature =
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"

    @Test func hexRoundTripsAndRejectsMalformedText() {
        let bytes: [UInt8] = [0x00, 0x01, 0x7f, 0x80, 0xab, 0xff]
        #expect(Hex.encode(bytes) == "00017f80abff")
        #expect(Hex.decode("00017f80abff") == bytes)
        #expect(Hex.decode("00017F80ABFF") == bytes)
        #expect(Hex.decode("") == [])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(Hex.isHexPrefix("dEadB"))
        #expect(!Hex.isHexPrefix(""))
        #expect(!Hex.isHexPrefix("12g"))
    }

    @Test func secureBytesHoldsComparesAndCopies() {
        let a = SecureBytes([1, 2, 3, 4])
        #expect(a.count == 4)
        #expect(a.unsafeCopy == [1, 2, 3, 4])
        #expect(a.isEqual(to: SecureBytes([1, 2, 3, 4])))
        #expect(!a.isEqual(to: SecureBytes([1, 2, 3, 5])))
        #expect(!a.isEqual(to: SecureBytes([1, 2, 3])))
        #expect(SecureBytes(count: 3).unsafeCopy == [0, 0, 0])
        let written = SecureBytes(count: 2) {
            $0[0] = 9; $0[1] = 8
        }
        #expect(written.unsafeCopy == [9, 8])
        #expect(SecureBytes(count: 0).unsafeCopy == [])
    }

    @Test func arrayWipeZeroesInPlace() {
        var secret: [UInt8] = [5, 6, 7]
        secret.wipe()
        #expect(secret == [0, 0, 0])
    }

    @Test func sha256AndBlake2bMatchKnownDigests() throws {
        #expect(
            Hash.sha256(Array("abc".utf8))
                == (try hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")))
        #expect(
            Hash.blake2b(Array("abc".utf8))
                == (try hex("bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319")))
        #expect(
            Hash.blake2b(Array("abc".utf8), key: Array(0..<32))
                == (try hex("d63a32d3e44738d7907f964316c241adaba0abfeabc32349677578a15a203f7f")))
        #expect(Hash.sha256([UInt8]()) == (try hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")))
    }

    @Test func incrementalSHA256MatchesOneShot() {
        var hasher = SHA256Hasher()
        hasher.update(Array("ab".utf8))
        hasher.update(SecureBytes(Array("c".utf8)))
        #expect(hasher.finalizeSecret().unsafeCopy == Hash.sha256(Array("abc".utf8)))
    }

    @Test func hmacIsHMACSHA512Truncated() throws {
        let key = [UInt8](0..<32)
        let message = Array("Confab".utf8)
        let tag = try HMAC.authenticate(message, key: key)
        #expect(tag == (try hex("9a1e9b7b8668da2d7fb4274f4b92d987338ddf5822cd88b87e101b0f12e7820d")))
        #expect(try HMAC.verify(tag: tag, message: message, key: key))
        #expect(try !HMAC.verify(tag: tag, message: Array("confab".utf8), key: key))
        #expect(try !HMAC.verify(tag: Array(tag.dropLast()), message: message, key: key))
        #expect(throws: CryptoError.invalidLength("HMAC key", expected: 32, actual: 31)) {
            try HMAC.authenticate(message, key: Array(key.dropLast()))
        }
    }

    @Test func aeadRoundTripsWithAdditionalDataAndRejectsChanges() throws {
        let key = AEAD.generateKey()
        let plaintext = Array("hello, room".utf8)
        let aad = Array("header".utf8)
        let sealed = try AEAD.seal(plaintext, key: key, additionalData: aad)
        #expect(sealed.count == AEAD.nonceLength + plaintext.count + AEAD.tagLength)
        #expect(try AEAD.open(sealed, key: key, additionalData: aad) == plaintext)

        let wrongAAD = #expect(throws: CryptoError.self) { try AEAD.open(sealed, key: key, additionalData: []) }
        #expect(wrongAAD?.isAuthenticationFailure == true)
        var tampered = sealed
        tampered[tampered.count - 1] ^= 1
        #expect(throws: CryptoError.authenticationFailed("AEAD ciphertext")) {
            try AEAD.open(tampered, key: key, additionalData: aad)
        }
        #expect(throws: CryptoError.authenticationFailed("AEAD ciphertext")) {
            try AEAD.open(sealed, key: AEAD.generateKey(), additionalData: aad)
        }
        #expect(throws: CryptoError.authenticationFailed("AEAD ciphertext")) {
            try AEAD.open(Array(sealed.prefix(10)), key: key)
        }
        #expect(throws: CryptoError.invalidLength("AEAD key", expected: 32, actual: 3)) {
            try AEAD.seal(plaintext, key: SecureBytes([1, 2, 3]))
        }
        // A fixed nonce gives a deterministic result and is carried in front.
        let nonce = [UInt8](repeating: 7, count: AEAD.nonceLength)
        let fixed = try AEAD.seal([], key: key, nonce: nonce)
        #expect(Array(fixed.prefix(AEAD.nonceLength)) == nonce)
        #expect(try AEAD.open(fixed, key: key) == [])
    }

    @Test func ed25519MatchesRFC8032AndRejectsForgeries() throws {
        let pair = try SigningKeyPair(seed: hex(Self.rfcSeed))
        #expect(pair.publicKey.bytes == (try hex(Self.rfcPublic)))
        let signature = pair.sign([UInt8]())
        #expect(signature == (try hex(Self.rfcSignature)))
        #expect(pair.publicKey.verify(signature: signature, message: [UInt8]()))
        #expect(!pair.publicKey.verify(signature: signature, message: [0]))
        #expect(!pair.publicKey.verify(signature: Array(signature.dropLast()), message: [UInt8]()))
        #expect(!SigningKeyPair.generate().publicKey.verify(signature: signature, message: [UInt8]()))
        var forged = signature
        forged[0] ^= 0x80
        #expect(!pair.publicKey.verify(signature: forged, message: [UInt8]()))
    }

    @Test func signingSeedAndSecretKeyRoundTrip() throws {
        let pair = SigningKeyPair.generate()
        let fromSeed = try SigningKeyPair(seed: pair.seed.unsafeCopy)
        #expect(fromSeed.publicKey == pair.publicKey)
        #expect(fromSeed.secretKey.isEqual(to: pair.secretKey))
        let fromSecret = try SigningKeyPair(secretKey: pair.secretKey.unsafeCopy)
        #expect(fromSecret.publicKey == pair.publicKey)

        var mismatched = pair.secretKey.unsafeCopy
        mismatched[63] ^= 1
        #expect(throws: CryptoError.invalidKey("Ed25519 secret key does not match its public half")) {
            try SigningKeyPair(secretKey: mismatched)
        }
        #expect(throws: CryptoError.invalidLength("Ed25519 seed", expected: 32, actual: 31)) {
            try SigningKeyPair(seed: [UInt8](repeating: 0, count: 31))
        }
        #expect(throws: CryptoError.invalidLength("Ed25519 public key", expected: 32, actual: 33)) {
            try SigningPublicKey(bytes: [UInt8](repeating: 0, count: 33))
        }
    }

    @Test func sealedBoxOpensOnlyForItsRecipient() throws {
        let recipient = SigningKeyPair.generate()
        let message = Array("conversation key".utf8)
        let sealed = try SealedBox.seal(message, to: recipient.publicKey)
        #expect(sealed.count == message.count + SealedBox.overhead)
        #expect(try SealedBox.open(sealed, with: recipient).unsafeCopy == message)

        #expect(throws: CryptoError.authenticationFailed("sealed box")) {
            try SealedBox.open(sealed, with: SigningKeyPair.generate())
        }
        var tampered = sealed
        tampered[5] ^= 1
        #expect(throws: CryptoError.authenticationFailed("sealed box")) {
            try SealedBox.open(tampered, with: recipient)
        }
        #expect(throws: CryptoError.authenticationFailed("sealed box")) {
            try SealedBox.open(Array(sealed.prefix(SealedBox.overhead - 1)), with: recipient)
        }
    }

    @Test func curve25519ConversionAgreesWithScalarMult() throws {
        let alice = SigningKeyPair.generate()
        let bob = SigningKeyPair.generate()
        let aliceCurve = try Curve25519KeyPair(secretKey: alice.curve25519SecretKey())
        #expect(aliceCurve.publicKey == (try alice.publicKey.curve25519()))
        let ab = try ScalarMult.sharedSecret(
            secretKey: alice.curve25519SecretKey(), publicKey: bob.publicKey.curve25519())
        let ba = try ScalarMult.sharedSecret(
            secretKey: bob.curve25519SecretKey(), publicKey: alice.publicKey.curve25519())
        #expect(ab.isEqual(to: ba))
    }

    @Test func scalarMultRejectsSmallOrderPoints() {
        let pair = Curve25519KeyPair.generate()
        #expect(throws: CryptoError.invalidKey("X25519 public key of small order")) {
            try ScalarMult.sharedSecret(secretKey: pair.secretKey, publicKey: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: CryptoError.invalidLength("X25519 public key", expected: 32, actual: 5)) {
            try ScalarMult.sharedSecret(secretKey: pair.secretKey, publicKey: [UInt8](repeating: 9, count: 5))
        }
        #expect(throws: CryptoError.invalidLength("X25519 secret key", expected: 32, actual: 31)) {
            try Curve25519KeyPair(secretKey: [UInt8](repeating: 1, count: 31))
        }
    }

    @Test func curve25519KeyPairRebuildsFromSecret() throws {
        let pair = Curve25519KeyPair.generate()
        let rebuilt = try Curve25519KeyPair(secretKey: pair.secretKey.unsafeCopy)
        #expect(rebuilt.publicKey == pair.publicKey)
    }

    @Test func secretBoxCombinedAndDetachedAgree() throws {
        let key = SecureBytes(Random.bytes(SecretBox.keyLength))
        let nonce = Random.bytes(SecretBox.nonceLength)
        let message = Array("frame body".utf8)
        let combined = try SecretBox.seal(message, nonce: nonce, key: key)
        let detached = try SecretBox.sealDetached(message, nonce: nonce, key: key)
        #expect(combined == detached.mac + detached.ciphertext)
        #expect(try SecretBox.open(combined, nonce: nonce, key: key) == message)
        #expect(try SecretBox.openDetached(detached.ciphertext, mac: detached.mac, nonce: nonce, key: key) == message)

        let empty = try SecretBox.seal([UInt8](), nonce: nonce, key: key)
        #expect(empty.count == SecretBox.macLength)
        #expect(try SecretBox.open(empty, nonce: nonce, key: key) == [])

        var tampered = combined
        tampered[20] ^= 4
        #expect(throws: CryptoError.authenticationFailed("secretbox")) {
            try SecretBox.open(tampered, nonce: nonce, key: key)
        }
        #expect(throws: CryptoError.authenticationFailed("secretbox")) {
            try SecretBox.open(combined, nonce: Random.bytes(SecretBox.nonceLength), key: key)
        }
        #expect(throws: CryptoError.authenticationFailed("secretbox")) {
            try SecretBox.open(Array(combined.prefix(15)), nonce: nonce, key: key)
        }
        #expect(throws: CryptoError.authenticationFailed("secretbox")) {
            try SecretBox.openDetached(detached.ciphertext, mac: Array(detached.mac.reversed()), nonce: nonce, key: key)
        }
        #expect(throws: CryptoError.invalidLength("secretbox nonce", expected: 24, actual: 3)) {
            try SecretBox.seal(message, nonce: [1, 2, 3], key: key)
        }
        #expect(throws: CryptoError.invalidLength("secretbox key", expected: 32, actual: 1)) {
            try SecretBox.seal(message, nonce: nonce, key: SecureBytes([1]))
        }
    }

    @Test func randomBytesHaveRequestedLengthAndVary() {
        #expect(Random.bytes(0) == [])
        #expect(Random.bytes(33).count == 33)
        #expect(Random.bytes(32) != Random.bytes(32))
        #expect(!Sodium.version.isEmpty)
    }
}
