import CSodium

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
        Sodium.ensureInitialized()
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

    /// Room `feed(_:into:)` needs for a chunk of `count` bytes: what it carries, and the
    /// part of a frame held from earlier chunks that it may complete.
    public func plaintextCapacity(forChunkOf count: Int) -> Int { count + pending.count }

    /// `feed` without copies, for the session's reads: every body the chunk completes is
    /// opened straight into `out` (which must hold `plaintextCapacity(forChunkOf:)` bytes),
    /// back to back; returns how many bytes were written there. A frame that lies whole within the chunk is opened where it lies; only one cut
    /// across chunks is gathered first. Throws as `feed` does, and then what it wrote in `out`
    /// counts for nothing.
    public mutating func feed(
        _ chunk: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer
    ) throws(BoxStreamError) -> Int {
        precondition(out.count >= plaintextCapacity(forChunkOf: chunk.count), "no room for the plaintext")
        return try process(chunk.bindMemory(to: UInt8.self), into: out, frames: nil)
    }

    private mutating func feedResult(_ chunk: UnsafeBufferPointer<UInt8>) -> Result<Output, BoxStreamError> {
        Result { () throws(BoxStreamError) -> Output in
            var lengths: [Int] = []
            let plaintext = try [UInt8](unsafeUninitializedCapacity: plaintextCapacity(forChunkOf: chunk.count)) {
                (buffer, initialized) throws(BoxStreamError) in
                initialized = try process(chunk, into: UnsafeMutableRawBufferPointer(buffer), frames: &lengths)
            }
            var frames: [[UInt8]] = []
            frames.reserveCapacity(lengths.count)
            var start = 0
            for length in lengths {
                frames.append(Array(plaintext[start..<start + length]))
                start += length
            }
            return Output(frames: frames, goodbye: isClosed)
        }
    }

    /// The state machine: headers and bodies taken from the chunk, opened into `out`.
    private mutating func process(
        _ chunk: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer,
        frames: UnsafeMutablePointer<[Int]>?
    ) throws(BoxStreamError) -> Int {
        if case .failed(let error) = state { throw error }
        var index = 0
        var written = 0
        do throws(BoxStreamError) {
            while index < chunk.count {
                switch state {
                case .awaitingHeader:
                    if pending.isEmpty, chunk.count - index >= BoxStream.headerLength {
                        try openHeader(chunk.baseAddress! + index)
                        index += BoxStream.headerLength
                    } else {
                        index = take(from: chunk, at: index, upTo: BoxStream.headerLength)
                        if pending.count == BoxStream.headerLength {
                            try pending.withUnsafeBufferPointer { pending throws(BoxStreamError) in
                                try openHeader(pending.baseAddress!)
                            }
                            pending.removeAll(keepingCapacity: true)
                        }
                    }
                case .awaitingBody(let length, let mac):
                    let target = (out.baseAddress! + written).assumingMemoryBound(to: UInt8.self)
                    if pending.isEmpty, chunk.count - index >= length {
                        try openBody(chunk.baseAddress! + index, length: length, mac: mac, into: target)
                        index += length
                    } else {
                        index = take(from: chunk, at: index, upTo: length)
                        guard pending.count == length else { continue }
                        try pending.withUnsafeBufferPointer { pending throws(BoxStreamError) in
                            try openBody(pending.baseAddress!, length: length, mac: mac, into: target)
                        }
                        pending.removeAll(keepingCapacity: true)
                    }
                    written += length
                    frames?.pointee.append(length)
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
        return written
    }

    /// Moves bytes from `chunk` into `pending` until it holds `target` bytes or the chunk
    /// runs out; returns where reading stopped.
    private mutating func take(from chunk: UnsafeBufferPointer<UInt8>, at index: Int, upTo target: Int) -> Int {
        let end = min(index + (target - pending.count), chunk.count)
        pending.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[index..<end]))
        return end
    }

    private mutating func openHeader(_ sealed: UnsafePointer<UInt8>) throws(BoxStreamError) {
        var plaintext = [UInt8](repeating: 0, count: BoxStream.headerPlaintextLength)
        let opened = key.withUnsafeBytes { key in
            crypto_secretbox_open_easy(
                &plaintext, sealed, UInt64(BoxStream.headerLength), nonce,
                key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard opened == 0 else { throw .headerNotAuthentic }
        if plaintext.allSatisfy({ $0 == 0 }) {
            state = .closed
            return
        }
        let length = Int(plaintext[0]) << 8 | Int(plaintext[1])
        guard length != 0 else { throw .zeroLengthFrame }
        guard length <= BoxStream.maxBodyLength else { throw .frameTooLong(length) }
        state = .awaitingBody(length: length, mac: Array(plaintext[2...]))
    }

    /// libsodium checks the MAC before it writes anything: a body that fails leaves `out` as
    /// it was.
    private mutating func openBody(
        _ sealed: UnsafePointer<UInt8>, length: Int, mac: [UInt8], into out: UnsafeMutablePointer<UInt8>
    ) throws(BoxStreamError) {
        let bodyNonce = BoxStream.incremented(nonce)
        let opened = key.withUnsafeBytes { key in
            crypto_secretbox_open_detached(
                out, sealed, mac, UInt64(length), bodyNonce, key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard opened == 0 else { throw .bodyNotAuthentic }
        BoxStream.increment(&nonce)
        BoxStream.increment(&nonce)
        state = .awaitingHeader
    }
}
