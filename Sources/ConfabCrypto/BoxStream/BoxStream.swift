/// Box-stream framing constants and the nonce arithmetic shared by both directions.
///
/// A frame is a 34-byte header, `secretbox_{key, n}(u16be body length ‖ body tag)`, followed
/// by the body ciphertext, `secretbox_{key, n+1}(body)` without its tag (the tag travels in
/// the header). Each frame advances the nonce by two. A header whose 18 plaintext bytes are
/// all zero is the goodbye that ends the stream.
public enum BoxStream {
    /// Largest body one frame carries; longer data is split across frames.
    public static let maxBodyLength = 4096
    /// Header plaintext: 2 bytes of length and the body's 16-byte tag.
    public static let headerPlaintextLength = 2 + SecretBox.macLength
    /// Header on the wire: the plaintext above plus the header's own tag.
    public static let headerLength = headerPlaintextLength + SecretBox.macLength

    /// Adds one to a nonce read as a big-endian integer, wrapping at 2^192 (unreachable in
    /// practice; wrapping matches the other implementations rather than trapping).
    /// Bytes a box-stream makes of `count` plaintext bytes sent together: maximal frames,
    /// each with its header.
    public static func sealedLength(of count: Int) -> Int {
        count + (count + maxBodyLength - 1) / maxBodyLength * headerLength
    }

    static func increment(_ nonce: inout [UInt8]) {
        var index = nonce.count - 1
        while index >= 0 {
            nonce[index] &+= 1
            if nonce[index] != 0 { return }
            index -= 1
        }
    }

    static func incremented(_ nonce: [UInt8]) -> [UInt8] {
        var next = nonce
        increment(&next)
        return next
    }

    static func validate(key: SecureBytes, nonce: [UInt8]) throws(BoxStreamError) {
        guard key.count == SecretBox.keyLength else { throw .invalidKey(actual: key.count) }
        guard nonce.count == SecretBox.nonceLength else { throw .invalidNonce(actual: nonce.count) }
    }
}
