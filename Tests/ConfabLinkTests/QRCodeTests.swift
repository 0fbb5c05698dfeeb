import ConfabClient
import ConfabTestSupport
import Foundation
import Testing

/// The QR code `confab devices link` draws (issue 33): what zbar reads from it is the text
/// it was made of, drawn in modules and in terminal half blocks alike.
@Suite struct QRCodeTests {
    let text = "confab init --link 7K2M9QX4PD --peer 192.168.1.20:45731"

    @Test func zbarReadsTheTextFromTheModules() throws {
        try #require(QRReader.isAvailable, "zbarimg is needed (make test-deps installs zbar-tools)")
        let code = try QRCode(text)
        #expect(code.width >= 21 && (code.width - 17) % 4 == 0)
        #expect(try QRReader.read(modules: code.modules, in: FileManager.default.temporaryDirectory) == text)
    }

    @Test func theTerminalDrawingHoldsTheSameCode() throws {
        try #require(QRReader.isAvailable, "zbarimg is needed (make test-deps installs zbar-tools)")
        let lines = try QRCode(text).terminalLines(colour: false)
        let modules = QRReader.modules(fromScreen: lines)
        #expect(try QRReader.read(modules: modules, in: FileManager.default.temporaryDirectory) == text)
        // With colour, the same characters between ANSI sequences.
        let coloured = try QRCode(text).terminalLines(colour: true)
        #expect(coloured.allSatisfy { $0.hasPrefix("\u{1B}[97;40m") && $0.hasSuffix("\u{1B}[0m") })
    }

    @Test func aTextNoCodeHoldsIsAClearError() {
        #expect(throws: QRCode.Failure.self) { try QRCode(String(repeating: "x", count: 4_000)) }
    }
}
