import ConfabWire

/// How the session fuzzers read an input: after its first byte (which picks options), a
/// sequence of session messages, each a 2-byte big-endian length and that many bytes,
/// decoded as from the network. A unit that does not decode is skipped, as a session would
/// refuse it; a length past the end takes what is left.
public func sessionMessages(in input: [UInt8]) -> [SessionMessage] {
    var messages: [SessionMessage] = []
    var offset = 1
    while offset + 2 <= input.count {
        let length = Int(input[offset]) << 8 | Int(input[offset + 1])
        offset += 2
        let end = min(input.count, offset + length)
        let unit = input[offset..<end]
        offset = end
        if let message = try? SessionCodec.decode(unit) { messages.append(message) }
    }
    return messages
}
