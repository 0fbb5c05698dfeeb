/// The sending half of a box-stream, as a state machine over bytes (no I/O).
public struct BoxStreamEncryptor: Sendable {
    private let key: SecureBytes
    private var nonce: [UInt8]
    /// True once `goodbye()` has been produced; nothing may be encrypted afterwards.
    public private(set) var isClosed = false

    public init(key: SecureBytes, nonce: [UInt8]) throws(BoxStreamError) {
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

        let bodyNonce = BoxStream.incremented(nonce)
        // Key and nonce lengths were validated at init, so secretbox cannot refuse them.
        guard let sealedBody = try? SecretBox.sealDetached(Array(body), nonce: bodyNonce, key: key) else {
            throw .invalidKey(actual: key.count)
        }
        let length = UInt16(body.count)
        let headerPlaintext = [UInt8(length >> 8), UInt8(length & 0xff)] + sealedBody.mac
        guard let header = try? SecretBox.seal(headerPlaintext, nonce: nonce, key: key) else {
            throw .invalidKey(actual: key.count)
        }
        BoxStream.increment(&nonce)
        BoxStream.increment(&nonce)
        return header + sealedBody.ciphertext
    }

    /// Splits `data` into as many maximal frames as needed and returns them back to back;
    /// empty data yields no bytes (there is nothing to send, and an empty frame cannot exist).
    public mutating func encrypt(_ data: some Collection<UInt8>) throws(BoxStreamError) -> [UInt8] {
        guard !isClosed else { throw .streamClosed }
        let bytes = Array(data)
        var out = [UInt8]()
        out.reserveCapacity(
            bytes.count + (bytes.count / BoxStream.maxBodyLength + 1) * BoxStream.headerLength)
        var start = 0
        while start < bytes.count {
            let end = min(start + BoxStream.maxBodyLength, bytes.count)
            out += try encryptFrame(bytes[start..<end])
            start = end
        }
        return out
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
