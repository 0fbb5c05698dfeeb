extension KeyDecoder {
    mutating func escape(_ byte: UInt8, into keys: inout [Key]) {
        switch byte {
        case UInt8(ascii: "["):
            startSequence(.controlSequence)
        case UInt8(ascii: "O"):
            startSequence(.singleShift)
        case 0x0D:
            keys.append(.altEnter)
            afterCarriageReturn = true
            state = .ground
        case 0x0A:
            keys.append(.altEnter)
            state = .ground
        case 0x1B:
            // Escape pressed twice: the first one is complete, the second waits in turn.
            keys.append(.escape)
        case 0x20...0x7E:
            keys.append(.alt(Character(Unicode.Scalar(byte))))
            state = .ground
        case 0xC2...0xF4:
            startCharacter(byte, alt: true)
        default:
            // Alt with Backspace, Tab or a Ctrl letter: no key of ours carries Alt there,
            // so the key counts without it.
            state = .ground
            ground(byte, into: &keys)
        }
    }

    private mutating func startSequence(_ kind: State) {
        state = kind
        sequence.removeAll(keepingCapacity: true)
        sequenceOverflowed = false
    }

    mutating func sequenceByte(_ byte: UInt8, into keys: inout [Key]) {
        switch byte {
        case 0x20...0x3F:
            // Parameter (0–9 ; < = > ?) and intermediate bytes.
            if sequence.count < Self.maximumSequenceBytes {
                sequence.append(byte)
            } else {
                sequenceOverflowed = true
            }
        case 0x40...0x7E:
            let kind = state
            state = .ground
            guard !sequenceOverflowed else { return }
            if kind == .controlSequence {
                finishControlSequence(final: byte, into: &keys)
            } else {
                finishSingleShift(final: byte, into: &keys)
            }
        case 0x1B:
            state = .escape
        default:
            // A control or non-ASCII byte cannot be inside a sequence: this one was cut
            // off, and the byte is input of its own.
            state = .ground
            ground(byte, into: &keys)
        }
    }

    mutating func linuxFunctionKey(_ byte: UInt8, into keys: inout [Key]) {
        state = .ground
        if !(0x40...0x7E).contains(byte) {
            ground(byte, into: &keys)
        }
    }

    private mutating func finishControlSequence(final: UInt8, into keys: inout [Key]) {
        if final == UInt8(ascii: "["), sequence.isEmpty {
            state = .linuxFunctionKey
            return
        }
        guard let parameters = Self.numericParameters(sequence) else { return }
        switch final {
        case UInt8(ascii: "Z"):
            keys.append(.shiftTab)
        case UInt8(ascii: "~"):
            switch parameters.first ?? 0 {
            case 1, 7: keys.append(.home)
            case 4, 8: keys.append(.end)
            case 3: keys.append(.delete)
            case 5: keys.append(.pageUp)
            case 6: keys.append(.pageDown)
            case 200: startPaste()
            default: break  // Insert, function keys, a stray end of paste.
            }
        default:
            if let key = Self.cursorKey(final) { keys.append(key) }
        }
    }

    private mutating func finishSingleShift(final: UInt8, into keys: inout [Key]) {
        guard Self.numericParameters(sequence) != nil else { return }
        if final == UInt8(ascii: "M") {
            keys.append(.enter)  // keypad Enter in application mode
        } else if let key = Self.cursorKey(final) {
            keys.append(key)
        }
    }

    /// Arrows, Home and End; a modifier parameter (ESC [ 1 ; 5 A is Ctrl+Up) is dropped,
    /// since the chat gives modified arrows no meaning of their own.
    private static func cursorKey(_ final: UInt8) -> Key? {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        default: return nil
        }
    }

    /// "1;5" → [1, 5]; nil for private or intermediate bytes (mouse reports, replies to
    /// queries), which are never keys.
    private static func numericParameters(_ bytes: [UInt8]) -> [Int]? {
        var parameters: [Int] = []
        var current = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                current = current * 10 + Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: ";"):
                parameters.append(current)
                current = 0
            default:
                return nil
            }
        }
        if !bytes.isEmpty { parameters.append(current) }
        return parameters
    }
}
