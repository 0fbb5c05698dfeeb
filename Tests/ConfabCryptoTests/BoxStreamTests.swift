import Testing

@testable import ConfabCrypto

/// box-stream.json: two frames and a goodbye from the C reference implementation.
struct BoxStreamVector: Decodable {
    struct Frame: Decodable {
        let plaintext: String
        let header: String
        let body: String
    }

    let key: String
    let nonce: String
    let frames: [Frame]
    let goodbyeHeader: String

    static func load() throws -> BoxStreamVector {
        try FixtureLoader.decode(BoxStreamVector.self, from: "box-stream", snakeCaseKeys: true)
    }

    func encryptor() throws -> BoxStreamEncryptor {
        try BoxStreamEncryptor(key: SecureBytes(hex(key)), nonce: hex(nonce))
    }
    func decryptor() throws -> BoxStreamDecryptor {
        try BoxStreamDecryptor(key: SecureBytes(hex(key)), nonce: hex(nonce))
    }

    /// The whole recorded stream: both frames, then goodbye.
    func wire() throws -> [UInt8] {
        try frames.flatMap { try hex($0.header) + hex($0.body) } + hex(goodbyeHeader)
    }

    func plaintexts() throws -> [[UInt8]] { try frames.map { try hex($0.plaintext) } }
}

@Suite("Box-stream")
struct BoxStreamTests {
    static let key = SecureBytes([UInt8](repeating: 0x42, count: 32))
    static let nonce = [UInt8](repeating: 0x07, count: 24)

    static func pair() throws -> (BoxStreamEncryptor, BoxStreamDecryptor) {
        (try BoxStreamEncryptor(key: key, nonce: nonce), try BoxStreamDecryptor(key: key, nonce: nonce))
    }

    /// A frame header sealed under `nonce` with chosen plaintext, as a misbehaving peer would
    /// write it.
    static func forgedHeader(_ plaintext: [UInt8]) throws -> [UInt8] {
        try SecretBox.seal(plaintext, nonce: nonce, key: key)
    }

    @Test func vectorFramesAndGoodbyeMatchByteForByte() throws {
        let vector = try BoxStreamVector.load()
        var encryptor = try vector.encryptor()
        for frame in vector.frames {
            let encrypted = try encryptor.encryptFrame(hex(frame.plaintext))
            #expect(Array(encrypted.prefix(34)) == (try hex(frame.header)))
            #expect(Array(encrypted.dropFirst(34)) == (try hex(frame.body)))
        }
        #expect(try encryptor.goodbye() == hex(vector.goodbyeHeader))
        #expect(encryptor.isClosed)
    }

    @Test func vectorStreamDecryptsInOneChunk() throws {
        let vector = try BoxStreamVector.load()
        var decryptor = try vector.decryptor()
        let output = try decryptor.feed(vector.wire())
        #expect(output.frames == (try vector.plaintexts()))
        #expect(output.goodbye)
        #expect(decryptor.isClosed)
    }

    @Test func vectorStreamDecryptsOneByteAtATime() throws {
        let vector = try BoxStreamVector.load()
        let wire = try vector.wire()
        var decryptor = try vector.decryptor()
        var frames: [[UInt8]] = []
        for (offset, byte) in wire.enumerated() {
            let output = try decryptor.feed([byte])
            frames += output.frames
            // Goodbye is signalled on its last byte, not before.
            #expect(output.goodbye == (offset == wire.count - 1))
            #expect(decryptor.bufferedByteCount <= BoxStream.maxBodyLength)
        }
        #expect(frames == (try vector.plaintexts()))
        #expect(decryptor.isClosed)
        #expect(try decryptor.feed([UInt8]()).goodbye)
    }

    /// Chunks with contiguous storage are read through a pointer; any other collection (here
    /// a lazy view) is copied first and must decode the same, a frame cut included.
    @Test func nonContiguousChunksDecodeLikeContiguousOnes() throws {
        let vector = try BoxStreamVector.load()
        let wire = try vector.wire()
        var decryptor = try vector.decryptor()
        let cut = BoxStream.headerLength + 3
        let first = try decryptor.feed(wire[..<cut].lazy.map { $0 })
        #expect(first.frames.isEmpty)
        #expect(decryptor.bufferedByteCount == 3)
        let rest = try decryptor.feed(wire[cut...].lazy.map { $0 })
        #expect(rest.frames == (try vector.plaintexts()))
        #expect(rest.goodbye)
        #expect(throws: BoxStreamError.dataAfterGoodbye) { try decryptor.feed([UInt8(0)].lazy.map { $0 }) }
    }

    @Test func randomDataSurvivesArbitraryChunking() throws {
        var (encryptor, decryptor) = try Self.pair()
        var generator = SystemRandomNumberGenerator()
        var sent: [[UInt8]] = []
        var wire: [UInt8] = []
        for length in [1, 2, 100, 4095, 4096, 4097, 9000, 1] {
            let data = Random.bytes(length)
            sent.append(data)
            wire += try encryptor.encrypt(data)
        }
        wire += try encryptor.goodbye()

        var received: [UInt8] = []
        var frameCount = 0
        var index = 0
        var sawGoodbye = false
        while index < wire.count {
            let size = Int.random(in: 1...5000, using: &generator)
            let end = min(index + size, wire.count)
            let output = try decryptor.feed(wire[index..<end])
            frameCount += output.frames.count
            received += output.frames.joined()
            sawGoodbye = output.goodbye
            index = end
        }
        #expect(received == Array(sent.joined()))
        #expect(sawGoodbye)
        // 4097 → 2 frames, 9000 → 3 frames, the six others 1 each.
        #expect(frameCount == 11)
    }

    @Test func vectorFramesSealedInPlaceMatchByteForByte() throws {
        let vector = try BoxStreamVector.load()
        var encryptor = try vector.encryptor()
        for frame in vector.frames {
            let plaintext = try hex(frame.plaintext)
            var out = [UInt8](repeating: 0xee, count: BoxStream.sealedLength(of: plaintext.count) + 5)
            let written = try plaintext.withUnsafeBytes { plain in
                try out.withUnsafeMutableBytes { try encryptor.encrypt(plain, into: $0) }
            }
            #expect(written == plaintext.count + 34)
            #expect(Array(out.prefix(34)) == (try hex(frame.header)))
            #expect(Array(out[34..<written]) == (try hex(frame.body)))
            #expect(out.suffix(5).allSatisfy { $0 == 0xee }, "nothing written past the frames")
        }
        #expect(try encryptor.goodbye() == hex(vector.goodbyeHeader))
    }

    @Test(arguments: [1, 4095, 4096, 4097, 12_288, 262_160])
    func sealingManyFramesAtOnceMatchesFrameByFrame(count: Int) throws {
        var (whole, _) = try Self.pair()
        var (frameByFrame, decryptor) = try Self.pair()
        let data = Random.bytes(count)
        let wire = try whole.encrypt(data)
        var expected: [UInt8] = []
        for start in stride(from: 0, to: count, by: 4096) {
            expected += try frameByFrame.encryptFrame(data[start..<min(start + 4096, count)])
        }
        #expect(wire == expected)
        #expect(wire.count == BoxStream.sealedLength(of: count))
        #expect(Array(try decryptor.feed(wire).frames.joined()) == data)
        // The streams stay in step after it.
        #expect(try whole.encryptFrame([1, 2, 3]) == frameByFrame.encryptFrame([1, 2, 3]))
    }

    @Test(arguments: [1, 33, 34, 35, 4130, 4131, 5000])
    func openingInPlaceSurvivesAnyChunkSize(chunkSize: Int) throws {
        var (encryptor, decryptor) = try Self.pair()
        let sent = Random.bytes(20_000)
        let wire = try encryptor.encrypt(sent) + encryptor.goodbye()
        var received: [UInt8] = []
        var index = 0
        while index < wire.count {
            let chunk = Array(wire[index..<min(index + chunkSize, wire.count)])
            var out = [UInt8](repeating: 0, count: decryptor.plaintextCapacity(forChunkOf: chunk.count))
            let written = try chunk.withUnsafeBytes { sealed in
                try out.withUnsafeMutableBytes { try decryptor.feed(sealed, into: $0) }
            }
            received += out.prefix(written)
            index += chunk.count
        }
        #expect(received == sent)
        #expect(decryptor.isClosed)
    }

    @Test func aForgedBodyOpenedInPlaceFailsAndTheStreamStaysFailed() throws {
        var (encryptor, decryptor) = try Self.pair()
        var wire = try encryptor.encrypt(Random.bytes(5000))
        wire[40] ^= 1  // in the first body
        var out = [UInt8](repeating: 0, count: decryptor.plaintextCapacity(forChunkOf: wire.count))
        #expect(throws: BoxStreamError.bodyNotAuthentic) {
            try wire.withUnsafeBytes { sealed in try out.withUnsafeMutableBytes { try decryptor.feed(sealed, into: $0) }
            }
        }
        #expect(throws: BoxStreamError.bodyNotAuthentic) { try decryptor.feed([UInt8](repeating: 0, count: 10)) }
    }

    @Test func encryptSplitsIntoMaximalFrames() throws {
        var (encryptor, decryptor) = try Self.pair()
        let data = Random.bytes(10_000)
        let wire = try encryptor.encrypt(data)
        #expect(wire.count == 10_000 + 3 * BoxStream.headerLength)
        let output = try decryptor.feed(wire)
        #expect(output.frames.map(\.count) == [4096, 4096, 1808])
        #expect(Array(output.frames.joined()) == data)
        #expect(try encryptor.encrypt([UInt8]()) == [])
    }

    @Test func encryptorRefusesEmptyOversizedAndLateFrames() throws {
        var (encryptor, _) = try Self.pair()
        #expect(throws: BoxStreamError.emptyFrame) { try encryptor.encryptFrame([UInt8]()) }
        #expect(throws: BoxStreamError.frameTooLong(4097)) { try encryptor.encryptFrame(Random.bytes(4097)) }
        #expect(try encryptor.encryptFrame(Random.bytes(4096)).count == 4096 + 34)
        _ = try encryptor.goodbye()
        #expect(throws: BoxStreamError.streamClosed) { try encryptor.encryptFrame([1]) }
        #expect(throws: BoxStreamError.streamClosed) { try encryptor.encrypt([1]) }
        #expect(throws: BoxStreamError.streamClosed) { try encryptor.goodbye() }
    }

    @Test func invalidKeyOrNonceLengthIsRejected() {
        #expect(throws: BoxStreamError.invalidKey(actual: 31)) {
            try BoxStreamEncryptor(key: SecureBytes(count: 31), nonce: Self.nonce)
        }
        #expect(throws: BoxStreamError.invalidNonce(actual: 23)) {
            try BoxStreamDecryptor(key: Self.key, nonce: [UInt8](repeating: 0, count: 23))
        }
    }

    @Test(arguments: [0x1001, 0x2000, 0xffff])
    func oversizedHeaderIsRejected(length: Int) throws {
        var (_, decryptor) = try Self.pair()
        let header = try Self.forgedHeader(
            [UInt8(length >> 8), UInt8(length & 0xff)] + [UInt8](repeating: 1, count: 16))
        #expect(throws: BoxStreamError.frameTooLong(length)) { try decryptor.feed(header) }
    }

    @Test func zeroLengthHeaderThatIsNotGoodbyeIsRejected() throws {
        var (_, decryptor) = try Self.pair()
        let header = try Self.forgedHeader([0, 0] + [UInt8](repeating: 0, count: 15) + [1])
        #expect(throws: BoxStreamError.zeroLengthFrame) { try decryptor.feed(header) }
    }

    @Test func maximalHeaderIsAccepted() throws {
        var (encryptor, decryptor) = try Self.pair()
        let data = Random.bytes(4096)
        #expect(try decryptor.feed(encryptor.encryptFrame(data)).frames == [data])
    }

    @Test func alteredHeaderOrBodyIsRejected() throws {
        var (encryptor, _) = try Self.pair()
        let frame = try encryptor.encryptFrame(Array("hello".utf8))
        for index in frame.indices {
            var altered = frame
            altered[index] ^= 0x20
            var (_, decryptor) = try Self.pair()
            let expected: BoxStreamError = index < 34 ? .headerNotAuthentic : .bodyNotAuthentic
            #expect(throws: expected) { try decryptor.feed(altered) }
        }
    }

    @Test func reorderedOrReplayedFramesAreRejected() throws {
        var (encryptor, _) = try Self.pair()
        let first = try encryptor.encryptFrame([1])
        let second = try encryptor.encryptFrame([2])
        var reordered = try Self.pair().1
        #expect(throws: BoxStreamError.headerNotAuthentic) { try reordered.feed(second) }
        var replayed = try Self.pair().1
        #expect(try replayed.feed(first).frames == [[1]])
        #expect(throws: BoxStreamError.headerNotAuthentic) { try replayed.feed(first) }
    }

    @Test func wrongKeyIsRejected() throws {
        var (encryptor, _) = try Self.pair()
        var decryptor = try BoxStreamDecryptor(key: SecureBytes(Random.bytes(32)), nonce: Self.nonce)
        #expect(throws: BoxStreamError.headerNotAuthentic) { try decryptor.feed(encryptor.encryptFrame([1, 2, 3])) }
    }

    @Test func dataAfterGoodbyeIsRejected() throws {
        var (encryptor, decryptor) = try Self.pair()
        var sameChunk = decryptor
        let goodbye = try encryptor.goodbye()
        #expect(throws: BoxStreamError.dataAfterGoodbye) { try sameChunk.feed(goodbye + [0]) }
        #expect(try decryptor.feed(goodbye).goodbye)
        #expect(throws: BoxStreamError.dataAfterGoodbye) { try decryptor.feed([0]) }
    }

    @Test func failureIsLatched() throws {
        var (encryptor, decryptor) = try Self.pair()
        let frame = try encryptor.encryptFrame([9, 9])
        var altered = frame
        altered[0] ^= 1
        #expect(throws: BoxStreamError.headerNotAuthentic) { try decryptor.feed(altered) }
        // The genuine frame cannot revive a broken stream.
        #expect(throws: BoxStreamError.headerNotAuthentic) { try decryptor.feed(frame) }
        #expect(throws: BoxStreamError.headerNotAuthentic) { try decryptor.feed([UInt8]()) }
    }

    @Test func partialInputIsHeldWithoutOutput() throws {
        var (encryptor, decryptor) = try Self.pair()
        let frame = try encryptor.encryptFrame(Random.bytes(4096))
        let output = try decryptor.feed(frame.dropLast())
        #expect(output.frames.isEmpty)
        #expect(!output.goodbye)
        #expect(decryptor.bufferedByteCount == 4095)
        #expect(try decryptor.feed(frame.suffix(1)).frames.count == 1)
        #expect(decryptor.bufferedByteCount == 0)
    }

    @Test func nonceIncrementsAsBigEndianCounter() {
        var nonce = [UInt8](repeating: 0, count: 24)
        BoxStream.increment(&nonce)
        #expect(nonce == [UInt8](repeating: 0, count: 23) + [1])
        nonce = [UInt8](repeating: 0, count: 22) + [0x01, 0xff]
        BoxStream.increment(&nonce)
        #expect(nonce == [UInt8](repeating: 0, count: 22) + [0x02, 0x00])
        nonce = [UInt8](repeating: 0xff, count: 24)
        BoxStream.increment(&nonce)
        #expect(nonce == [UInt8](repeating: 0, count: 24))
    }

    @Test func nonceCarriesAcrossFramesLikeTheDecryptorExpects() throws {
        // Start just below a byte boundary so the counter carries mid-stream.
        let nonce = [UInt8](repeating: 0, count: 21) + [0x00, 0xff, 0xfe]
        var encryptor = try BoxStreamEncryptor(key: Self.key, nonce: nonce)
        var decryptor = try BoxStreamDecryptor(key: Self.key, nonce: nonce)
        let wire = try encryptor.encrypt([1]) + encryptor.encrypt([2]) + encryptor.encrypt([3]) + encryptor.goodbye()
        let output = try decryptor.feed(wire)
        #expect(output.frames == [[1], [2], [3]])
        #expect(output.goodbye)
    }
}
