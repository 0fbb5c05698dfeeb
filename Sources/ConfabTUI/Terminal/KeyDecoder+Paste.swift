extension KeyDecoder {
    private static let pasteTerminator: [UInt8] = Array("\u{1B}[201~".utf8)

    mutating func startPaste() {
        state = .paste
        pasteBytes.removeAll(keepingCapacity: false)
        pasteTerminatorMatched = 0
    }

    mutating func pasteByte(_ byte: UInt8, into keys: inout [Key]) {
        let terminator = Self.pasteTerminator
        if byte == terminator[pasteTerminatorMatched] {
            pasteTerminatorMatched += 1
            if pasteTerminatorMatched == terminator.count {
                finishPaste(into: &keys)
            }
            return
        }
        // ESC occurs only first in the terminator, so a mismatch leaves the held bytes as
        // text, and only an ESC can begin the terminator again.
        for held in terminator[..<pasteTerminatorMatched] {
            appendPasted(held)
        }
        pasteTerminatorMatched = 0
        if byte == terminator[0] {
            pasteTerminatorMatched = 1
        } else {
            appendPasted(byte)
        }
    }

    private mutating func appendPasted(_ byte: UInt8) {
        if pasteBytes.count < Self.maximumPasteBytes {
            pasteBytes.append(byte)
        }
    }

    private mutating func finishPaste(into keys: inout [Key]) {
        state = .ground
        let text = Self.pastedText(pasteBytes)
        pasteBytes = []
        pasteTerminatorMatched = 0
        if !text.isEmpty {
            keys.append(.paste(text))
        }
    }

    /// The pasted bytes as text for the input bar: invalid UTF-8 dropped, line ends made
    /// "\n" (terminals paste them as CR), and other control characters removed, since the
    /// text becomes a message that other people's terminals show.
    static func pastedText(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var afterCarriageReturn = false
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                let wasAfterCarriageReturn = afterCarriageReturn
                afterCarriageReturn = scalar == "\r"
                switch scalar {
                case "\r": scalars.append("\n")
                case "\n": if !wasAfterCarriageReturn { scalars.append("\n") }
                case "\t": scalars.append(scalar)
                default:
                    if scalar.properties.generalCategory != .control { scalars.append(scalar) }
                }
            case .emptyInput:
                break decoding
            case .error:
                continue
            }
        }
        return String(scalars)
    }
}
