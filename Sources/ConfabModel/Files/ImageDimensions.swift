/// An image's width and height read from the first bytes of its file (PNG, GIF, JPEG, BMP),
/// so a file message can say "800×600". Reads only what it was given, checks every offset,
/// and gives nil for anything it does not recognise.
public enum ImageDimensions {
    /// Bytes from the start of a file that are enough for every format read here (a JPEG's
    /// size comes after its metadata segments, which may be long).
    public static let headerBytes = 256 << 10

    public static func read(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        let found: (Int, Int)?
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            found = png(bytes)
        } else if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            found = bytes.count >= 10 ? (Int(le16(bytes, 6)), Int(le16(bytes, 8))) : nil
        } else if bytes.starts(with: [0xFF, 0xD8]) {
            found = jpeg(bytes)
        } else if bytes.starts(with: Array("BM".utf8)), bytes.count >= 26 {
            // A height below zero means the rows are stored top-down.
            found = (
                Int(Int32(bitPattern: le32(bytes, 18)).magnitude), Int(Int32(bitPattern: le32(bytes, 22)).magnitude)
            )
        } else {
            found = nil
        }
        guard let (width, height) = found, width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 else {
            return nil
        }
        return (width, height)
    }

    private static func png(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        return (Int(be32(bytes, 16)), Int(be32(bytes, 20)))
    }

    /// Walks the segments to the first start-of-frame marker.
    private static func jpeg(_ bytes: [UInt8]) -> (Int, Int)? {
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF {
                offset += 1
                continue
            }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
                offset += 2
                continue
            }
            let length = Int(be16(bytes, offset + 2))
            guard length >= 2 else { return nil }
            let isFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isFrame {
                guard offset + 9 <= bytes.count else { return nil }
                return (Int(be16(bytes, offset + 7)), Int(be16(bytes, offset + 5)))
            }
            offset += 2 + length
        }
        return nil
    }

    private static func be16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
    private static func le16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i + 1]) << 8 | UInt16(b[i]) }
    private static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
    private static func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i + 3]) << 24 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i])
    }
}
