import CQREncode

/// A QR code of a short text (a link code and where to find the offer), made by libqrencode,
/// so a machine with a camera can read what a person would otherwise type.
public struct QRCode: Sendable, Equatable {
    /// Rows of modules, top first; true is dark.
    public let modules: [[Bool]]

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The smallest code that holds `text` in 8-bit mode with error correction level M
    /// (15%: a code shown on a screen and read by a camera rarely loses more).
    public init(_ text: String) throws(Failure) {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else {
            throw Failure(description: "no QR code holds \(text.utf8.count) bytes")
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = UnsafeBufferPointer(start: code.pointee.data, count: width * width)
        // Bit 0 of each byte is the module's colour; the others say what the module is part of.
        modules = (0..<width).map { row in (0..<width).map { data[row * width + $0] & 1 == 1 } }
    }

    public var width: Int { modules.count }

    /// The code in a terminal: two rows of modules per line with half blocks, light modules
    /// drawn, inside a quiet zone of 2 modules (readers need one around the code). `colour`
    /// forces light on black with ANSI, so the code reads the same on light and dark themes.
    public func terminalLines(colour: Bool) -> [String] {
        let quiet = 2
        let size = width + 2 * quiet
        func light(_ row: Int, _ column: Int) -> Bool {
            let (r, c) = (row - quiet, column - quiet)
            guard (0..<width).contains(r), (0..<width).contains(c) else { return true }
            return !modules[r][c]
        }
        return stride(from: 0, to: size, by: 2).map { row in
            let line = String(
                (0..<size).map { column -> Character in
                    switch (light(row, column), row + 1 < size ? light(row + 1, column) : false) {
                    case (true, true): "█"
                    case (true, false): "▀"
                    case (false, true): "▄"
                    case (false, false): " "
                    }
                })
            return colour ? "\u{1B}[97;40m" + line + "\u{1B}[0m" : line
        }
    }
}
