import CSodium

/// The sending half of a box-stream, as a state machine over bytes (no I/O).
public struct BoxStreamEncryptor: Sendable {
    private let key: SecureBytes
    private var nonce: [UInt8]
    /// True once `goodbye()` has been produced; nothing may be encrypted afterwards.
    public private(set) var isClosed = false

    public init(key: SecureBytes, nonce: [UInt8]) throws(BoxStreamError) {
        Sodium.ensureInitialized()
        try BoxStream.validate(key: key, nonce: nonce)
        self.key = key
        self.nonce = nonce
    }

    /// The direction this side sends, as the handshake agreed it.
    public init(outcome: SecretHandshakeOutcome) throws(BoxStreamError) {
        try self.init(key: outcome.encryptionKey, nonce: outcome.encryptionNonce)
    }

    /// One frame for a body of 1…4096 bytes: 34-byte header, then the body ciphertext.
    public mutating func encryptFrame(_ body: some Collection<UInt8>) throws(BoxStreamError) -> [UInt8] {
        guard !isClosed else { throw .streamClosed }
        guard !body.isEmpty else { throw .emptyFrame }
        guard body.count <= BoxStream.maxBodyLength else { throw .frameTooLong(body.count) }
        return try encrypt(body)
    }

    /// Splits `data` into as many maximal frames as needed and returns them back to back;
    /// empty data yields no bytes (there is nothing to send, and an empty frame cannot exist).
    public mutating func encrypt(_ data: some Collection<UInt8>) throws(BoxStreamError) -> [UInt8] {
        guard !isClosed else { throw .streamClosed }
        let bytes = Array(data)
        let length = BoxStream.sealedLength(of: bytes.count)
        return [UInt8](unsafeUninitializedCapacity: length) { out, initialized in
            bytes.withUnsafeBytes { plain in
                initialized = sealFrames(plain, into: UnsafeMutableRawBufferPointer(out))
            }
        }
    }

    /// `encrypt` without a copy: seals `plaintext` as frames written back to back at the
    /// start of `out`, which must hold `BoxStream.sealedLength(of: plaintext.count)` bytes;
    /// returns how many it wrote. File data goes through here, so each frame is sealed where
    /// it is sent from, not built in pieces and copied together.
    public mutating func encrypt(
        _ plaintext: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer
    ) throws(BoxStreamError) -> Int {
        guard !isClosed else { throw .streamClosed }
        precondition(out.count >= BoxStream.sealedLength(of: plaintext.count), "no room for the sealed frames")
        return sealFrames(plaintext, into: out)
    }

    /// Each frame: the body sealed (detached) into place behind its header's slot, then the
    /// header — the body's length and MAC — sealed into the slot, with the nonces in turn.
    private mutating func sealFrames(
        _ plaintext: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer
    )
        -> Int
    {
        guard plaintext.count > 0, let source = plaintext.baseAddress, let target = out.baseAddress else { return 0 }
        var bodyNonce = nonce
        var header = [UInt8](repeating: 0, count: BoxStream.headerPlaintextLength)
        var read = 0
        var written = 0
        key.withUnsafeBytes { keyBytes in
            let key = keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            while read < plaintext.count {
                let count = min(BoxStream.maxBodyLength, plaintext.count - read)
                BoxStream.increment(&bodyNonce)
                let body = (target + written + BoxStream.headerLength).assumingMemoryBound(to: UInt8.self)
                header.withUnsafeMutableBufferPointer { header in
                    header[0] = UInt8(count >> 8)
                    header[1] = UInt8(count & 0xff)
                    _ = crypto_secretbox_detached(
                        body, header.baseAddress! + 2, (source + read).assumingMemoryBound(to: UInt8.self),
                        UInt64(count), bodyNonce, key)
                    _ = crypto_secretbox_easy(
                        (target + written).assumingMemoryBound(to: UInt8.self), header.baseAddress!,
                        UInt64(header.count), nonce, key)
                }
                BoxStream.increment(&nonce)
                BoxStream.increment(&nonce)
                BoxStream.increment(&bodyNonce)
                read += count
                written += BoxStream.headerLength + count
            }
        }
        return written
    }

    /// The final 34 bytes: a header sealing 18 zero bytes. Ends the stream.
    public mutating func goodbye() throws(BoxStreamError) -> [UInt8] {
        guard !isClosed else { throw .streamClosed }
        let zeros = [UInt8](repeating: 0, count: BoxStream.headerPlaintextLength)
        guard let header = try? SecretBox.seal(zeros, nonce: nonce, key: key) else {
            throw .invalidKey(actual: key.count)
        }
        isClosed = true
        return header
    }
}
