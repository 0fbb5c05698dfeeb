/// Turns the bytes a terminal sends into keys, incrementally: reads may split a character
/// or an escape sequence anywhere, so whatever is incomplete waits for the next `feed`.
///
/// A lone ESC is ambiguous (the Escape key, or the start of a sequence or of Alt+key), so
/// it stays pending until the reader sees a short silence and calls `flushPendingEscape()`.
/// Invalid UTF-8, unknown sequences and malformed ones are consumed and dropped; memory is
/// bounded whatever arrives (sequences are capped, pastes beyond `maximumPasteBytes` cut).
public struct KeyDecoder: Sendable {
    /// Pasted bytes kept; the rest of a larger paste is dropped (the input bar is not an
    /// upload channel, and a runaway paste must not grow memory).
    public static let maximumPasteBytes = 64 * 1024

    /// Parameter and intermediate bytes kept for one CSI/SS3 sequence; longer sequences are
    /// skipped to their final byte and ignored (no key of ours has parameters that long).
    static let maximumSequenceBytes = 16

    enum State: Sendable, Equatable {
        case ground
        /// ESC seen.
        case escape
        /// ESC [ seen; parameters in `sequence`.
        case controlSequence
        /// ESC O seen; parameters in `sequence`.
        case singleShift
        /// ESC [ [ seen: the Linux console's F1–F5 send one more byte.
        case linuxFunctionKey
        /// A multi-byte UTF-8 character under way in `utf8`; `alt` when ESC preceded it.
        case utf8(alt: Bool)
        /// Inside ESC [ 200 ~ … ESC [ 201 ~.
        case paste
    }

    var state = State.ground
    /// A CR was just decoded, so a LF right after it belongs to the same Enter.
    var afterCarriageReturn = false
    var sequence: [UInt8] = []
    var sequenceOverflowed = false
    var utf8: [UInt8] = []
    var utf8Length = 0
    var pasteBytes: [UInt8] = []
    /// How many bytes of the paste terminator the latest paste bytes match.
    var pasteTerminatorMatched = 0

    public init() {}

    /// Whether an escape is waiting for more bytes: the reader then arms its short timer
    /// and calls `flushPendingEscape()` if nothing arrives.
    public var hasPendingEscape: Bool {
        switch state {
        case .escape, .controlSequence, .singleShift, .linuxFunctionKey: return true
        case .ground, .utf8, .paste: return false
        }
    }

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
        // Callers in other modules reach this generic code unspecialised, where iterating
        // element by element costs more than decoding; contiguous bytes are read through a
        // pointer instead.
        bytes.withContiguousStorageIfAvailable { decode($0) } ?? decode(bytes)
    }

    private mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
        var keys: [Key] = []
        for byte in bytes {
            consume(byte, into: &keys)
        }
        return keys
    }

    /// Called when no byte followed an escape in time: a lone ESC was the Escape key, and
    /// ESC [ or ESC O alone were Alt+[ and Alt+O. A sequence cut off later is dropped.
    public mutating func flushPendingEscape() -> [Key] {
        let keys: [Key]
        switch state {
        case .escape:
            keys = [.escape]
        case .controlSequence where sequence.isEmpty && !sequenceOverflowed:
            keys = [.alt("[")]
        case .singleShift where sequence.isEmpty && !sequenceOverflowed:
            keys = [.alt("O")]
        case .controlSequence, .singleShift, .linuxFunctionKey:
            keys = []
        case .ground, .utf8, .paste:
            return []
        }
        state = .ground
        return keys
    }

    mutating func consume(_ byte: UInt8, into keys: inout [Key]) {
        switch state {
        case .ground: ground(byte, into: &keys)
        case .escape: escape(byte, into: &keys)
        case .controlSequence, .singleShift: sequenceByte(byte, into: &keys)
        case .linuxFunctionKey: linuxFunctionKey(byte, into: &keys)
        case .utf8(let alt): continueCharacter(byte, alt: alt, into: &keys)
        case .paste: pasteByte(byte, into: &keys)
        }
    }

    mutating func ground(_ byte: UInt8, into keys: inout [Key]) {
        if afterCarriageReturn {
            afterCarriageReturn = false
            if byte == 0x0A { return }
        }
        switch byte {
        case 0x1B:
            state = .escape
        case 0x0D:
            keys.append(.enter)
            afterCarriageReturn = true
        case 0x0A:
            keys.append(.enter)
        case 0x09:
            keys.append(.tab)
        case 0x08, 0x7F:
            keys.append(.backspace)
        case 0x01...0x1A:
            keys.append(.control(Character(Unicode.Scalar(byte + 0x60))))
        case 0x20...0x7E:
            keys.append(.character(Character(Unicode.Scalar(byte))))
        case 0xC2...0xF4:
            startCharacter(byte, alt: false)
        default:
            // NUL, Ctrl+\ … Ctrl+_, stray continuation bytes and bytes no UTF-8 has.
            break
        }
    }
}
