import CLibFuzzerDriver
import ConfabCrypto

// Fixed key and nonce: the fuzzer cannot guess a MAC, so the raw mode probes framing and
// chunking, while the round-trip mode produces valid frames and lets the input choose how
// they are cut and which byte, if any, is corrupted.
private let key = SecureBytes([UInt8](repeating: 0x3c, count: 32))
private let nonce = [UInt8](repeating: 0, count: 21) + [0x00, 0xff, 0xfe]
private let maxMessages = 16

/// Chunk sizes drawn from a tiny generator seeded by the input, so one input always cuts
/// the stream the same way.
private struct ChunkSizes {
    var state: UInt32

    mutating func next() -> Int {
        state = state &* 1_664_525 &+ 1_013_904_223
        // Mostly small chunks (boundary cases), sometimes large ones.
        return state >> 31 == 0 ? Int(state >> 16 & 0x3f) + 1 : Int(state >> 16 & 0x1fff) + 1
    }
}

private func decrypt(_ wire: [UInt8], seed: UInt32) throws(BoxStreamError) -> (frames: [[UInt8]], goodbye: Bool) {
    var decryptor = try BoxStreamDecryptor(key: key, nonce: nonce)
    var sizes = ChunkSizes(state: seed)
    var frames: [[UInt8]] = []
    var goodbye = false
    var index = 0
    while index < wire.count {
        let end = min(index + sizes.next(), wire.count)
        let output = try decryptor.feed(wire[index..<end])
        frames += output.frames
        goodbye = output.goodbye
        index = end
    }
    return (frames, goodbye)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = input.first else { return 0 }
    let seed = UInt32(mode)
    let body = Array(input.dropFirst())

    if mode & 1 == 0 {
        // Raw attacker bytes: must be rejected or held, never crash.
        _ = try? decrypt(body, seed: seed)
        return 0
    }

    // Round trip: the rest of the input is split into messages at 0xff bytes, the first
    // `maxMessages` of them kept. Every frame costs a seal, an open and about ten recorded
    // allocations, so an input of hundreds of short messages ran at a tenth of the rate;
    // the nonce carries across its last two bytes in the first frame, and the chunk sizes
    // cut across frames within the first few, so more frames reach nothing new.
    var encryptor = try! BoxStreamEncryptor(key: key, nonce: nonce)
    let messages = body.split(separator: 0xff, maxSplits: maxMessages, omittingEmptySubsequences: true)
        .prefix(maxMessages).map { Array($0) }
    var wire: [UInt8] = []
    for message in messages { wire += try! encryptor.encrypt(message) }
    wire += try! encryptor.goodbye()

    let corrupt = mode & 2 != 0 && !wire.isEmpty
    if corrupt {
        let position = Int(seed &* 2_654_435_761 % UInt32(wire.count))
        wire[position] ^= 0x01
    }
    let result = try? decrypt(wire, seed: seed)
    if corrupt {
        precondition(result == nil, "a corrupted box-stream was accepted")
    } else {
        guard let result else { preconditionFailure("a valid box-stream was rejected") }
        precondition(result.goodbye, "goodbye not signalled")
        precondition(Array(result.frames.joined()) == Array(messages.joined()), "box-stream round trip altered data")
        precondition(result.frames.allSatisfy { !$0.isEmpty && $0.count <= BoxStream.maxBodyLength })
    }
    return 0
}

/// SwiftPM links each executable with `main` aliased to `<target>_main`, which would
/// otherwise be missing here (no top-level code); it starts libFuzzer's driver.
@_cdecl("FuzzBoxStream_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    confab_run_libfuzzer(argc, argv)
}
