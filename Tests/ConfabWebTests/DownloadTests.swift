import Testing

@testable import ConfabWeb

@Suite struct DownloadTests {
    /// A peer's file name cannot end the header's quoted string, add a parameter, name a
    /// folder or carry control characters; the exact name survives percent-encoded.
    @Test func hostileNamesAreSafeInTheHeader() {
        let header = DownloadName.disposition("a\"; filename=evil.html\r\nX: y/../é.txt", inline: false)
        #expect(header.hasPrefix("attachment; filename=\""))
        let fallback = header.split(separator: "\"")[1]
        #expect(!fallback.contains(";") && !fallback.contains("/") && !fallback.contains("\r"))
        #expect(header.contains("filename*=UTF-8''"))
        #expect(header.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 })
        #expect(
            DownloadName.disposition("photo.png", inline: true)
                == #"inline; filename="photo.png"; filename*=UTF-8''photo.png"#)
    }

    /// Only the raster types a browser cannot run script in are shown inline, told by their
    /// bytes whatever the sender called them.
    @Test func onlyCheckedRasterImagesAreInline() {
        #expect(InlineImage.mediaType(of: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == "image/png")
        #expect(InlineImage.mediaType(of: [0xFF, 0xD8, 0xFF, 0xE0]) == "image/jpeg")
        #expect(InlineImage.mediaType(of: Array("GIF89a...".utf8)) == "image/gif")
        #expect(InlineImage.mediaType(of: Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == "image/webp")
        #expect(InlineImage.mediaType(of: Array("<svg xmlns='http://www.w3.org/2000/svg'>".utf8)) == nil)
        #expect(InlineImage.mediaType(of: Array("<html><script>".utf8)) == nil)
        #expect(InlineImage.mediaType(of: []) == nil)
    }
}
