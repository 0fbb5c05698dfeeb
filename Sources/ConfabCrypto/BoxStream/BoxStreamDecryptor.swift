/// The receiving half of a box-stream, as an incremental state machine over bytes (no I/O).
///
/// Feed it whatever chunks the transport delivers; it returns every frame completed by
/// that chunk. It holds at most one incomplete header or body (≤ 4096 bytes), so a peer
/// cannot make it buffer more. After any error it stays failed and rethrows that error.
public struct BoxStreamDecryptor: Sendable {
    /// What one `feed` produced.
    public struct Output: Equatable, Sendable {
        /// Plaintext bodies completed by this chunk, in order.
        public var frames: [[UInt8]]
        /// True once the goodbye has been received (in this chunk or before): the peer will
        /// send nothing more.
        public var goodbye: Bool
    }

    private enum State: Sendable {
        case awaitingHeader
        case awaitingBody(length: Int, mac: [UInt8])
        case closed
        case failed(BoxStreamError)
    }

    private let key: SecureBytes
    private var nonce: [UInt8]
    private var state = State.awaitingHeader
    private var pending: [UInt8] = []

    public init(key: SecureBytes, nonce: [UInt8]) throws(BoxStreamError) {
        try BoxStream.validate(key: key, nonce: nonce)
        self.key = key
        self.nonce = nonce
    }

    /// The direction this side receives, as the handshake agreed it.
    public init(outcome: SecretHandshakeOutcome) throws(BoxStreamError) {
        try self.init(key: outcome.decryptionKey, nonce: outcome.decryptionNonce)
    }

    /// True once the goodbye has been received.
    public var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// Bytes held towards the next header or body; never more than one frame's worth.
    var bufferedByteCount: Int { pending.count }

    /// Consumes `chunk`. Throws on the first violation in it: a header or body that fails
    /// authentication, a header announcing 0 (outside goodbye) or more than 4096 bytes, or
    /// any byte after the goodbye. Frames completed earlier in the same chunk are dropped
    /// with it, as the connection is to be closed anyway.
    public mutating func feed(_ chunk: some Collection<UInt8>) throws(BoxStreamError) -> Output {
        // Callers in other modules (NIO's ByteBufferView, arrays) reach this generic code
        // unspecialised, where copying the chunk element by element costs more than
        // decrypting it; their bytes are contiguous, so they are read through a pointer.
        if let result = chunk.withContiguousStorageIfAvailable({ feedResult($0) }) { return try result.get() }
        return try Array(chunk).withUnsafeBufferPointer { feedResult($0) }.get()
    }

    private mutating func feedResult(_ chunk: UnsafeBufferPointer<UInt8>) -> Result<Output, BoxStreamError> {
        Result { () throws(BoxStreamError) -> Output in try feed(contiguous: chunk) }
    }

    private mutating func feed(contiguous chunk: UnsafeBufferPointer<UInt8>) throws(BoxStreamError) -> Output {
        if case .failed(let error) = state { throw error }
        var frames: [[UInt8]] = []
        var index = chunk.startIndex
        do throws(BoxStreamError) {
            while index != chunk.endIndex {
                switch state {
                case .awaitingHeader:
                    index = take(from: chunk, at: index, upTo: BoxStream.headerLength)
                    if pending.count == BoxStream.headerLength { try readHeader() }
                case .awaitingBody(let length, let mac):
                    index = take(from: chunk, at: index, upTo: length)
                    if pending.count == length { frames.append(try readBody(mac: mac)) }
                case .closed:
                    throw BoxStreamError.dataAfterGoodbye
                case .failed(let error):
                    throw error
                }
            }
        } catch {
            // Latch: a stream that broke once must not resume, whatever arrives next.
            state = .failed(error)
            pending = []
            throw error
        }
        return Output(frames: frames, goodbye: isClosed)
    }

    /// Moves bytes from `chunk` into `pending` until it holds `target` bytes or the chunk
    /// runs out; returns where reading stopped.
    private mutating func take(from chunk: UnsafeBufferPointer<UInt8>, at index: Int, upTo target: Int) -> Int {
        let end = min(index + (target - pending.count), chunk.endIndex)
        pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[index..<end]))
        return end
    }

    private mutating func readHeader() throws(BoxStreamError) {
        guard let plaintext = try? SecretBox.open(pending, nonce: nonce, key: key) else {
            throw .headerNotAuthentic
        }
        pending.removeAll(keepingCapacity: true)
        if plaintext.allSatisfy({ $0 == 0 }) {
            state = .closed
            return
        }
        let length = Int(plaintext[0]) << 8 | Int(plaintext[1])
        guard length != 0 else { throw .zeroLengthFrame }
        guard length <= BoxStream.maxBodyLength else { throw .frameTooLong(length) }
        state = .awaitingBody(length: length, mac: Array(plaintext[2...]))
    }

    private mutating func readBody(mac: [UInt8]) throws(BoxStreamError) -> [UInt8] {
        let bodyNonce = BoxStream.incremented(nonce)
        guard let body = try? SecretBox.openDetached(pending, mac: mac, nonce: bodyNonce, key: key) else {
            throw .bodyNotAuthentic
        }
        pending.removeAll(keepingCapacity: true)
        BoxStream.increment(&nonce)
        BoxStream.increment(&nonce)
        state = .awaitingHeader
        return body
    }
}
