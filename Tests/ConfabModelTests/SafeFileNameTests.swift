import Testing

@testable import ConfabModel

@Suite("File names from the network")
struct SafeFileNameTests {
    @Test(arguments: [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", ".._.._etc_passwd"),
        ("/etc/passwd", "_etc_passwd"),
        ("..", "_"), (".", "_"), ("", "_"), ("...", "_"), ("   ", "_"),
        ("C:\\Windows\\system.ini", "C__Windows_system.ini"),
        ("CON", "_CON"), ("con.txt", "_con.txt"), ("LPT9.tar.gz", "_LPT9.tar.gz"), ("Com1 ", "_Com1"),
        ("console.txt", "console.txt"),
        ("name\u{0}with\u{1B}[31mnul", "name_with_[31mnul"),
        ("evil\u{202E}txt.exe", "evil_txt.exe"),
        ("trailing dots...", "trailing dots"),
        ("line\nbreak", "line_break"),
        (" .hidden", ".hidden"),
    ])
    func componentIsSafe(_ name: String, _ expected: String) {
        let safe = SafeFileName.component(name)
        #expect(safe == expected)
        #expect(!safe.contains("/") && safe != ".." && safe != "." && !safe.isEmpty)
    }

    @Test func longNamesKeepTheirExtensionAndACharacterBoundary() {
        let long = String(repeating: "é", count: 300) + ".jpeg"
        let safe = SafeFileName.component(long)
        #expect(safe.utf8.count <= 255)
        #expect(safe.hasSuffix(".jpeg"))
        #expect(safe.hasPrefix("éé"))
    }

    @Test func foldersBecomeRelativeSafeComponents() {
        #expect(SafeFileName.folder("/abs//path/../x") == ["abs", "path", "_", "x"])
        #expect(SafeFileName.folder("") == [])
        #expect(SafeFileName.relativePath(name: "../a", folder: "../../b") == ["_", "_", "b", ".._a"])
    }

    @Test func chunkSetsCountAndTrimTheirBitmap() {
        var set = ChunkSet(count: 20)
        set.insert(0)
        set.insert(9)
        set.insert(9)
        #expect(set.heldCount == 2 && set.contains(9) && !set.contains(1) && !set.contains(25))
        #expect(set.trimmedBytes == [0x01, 0x02])
        // Bits beyond the count are ignored, missing bytes are zero.
        let fromWire = ChunkSet(count: 10, bitmap: [0xff, 0xff, 0xff])
        #expect(fromWire.heldCount == 10 && fromWire.isComplete)
        #expect(ChunkSet(count: 10, bitmap: [0x01]).missing == Array(1..<10))
        #expect(ChunkSet.full(count: 0).isComplete)
    }
}
