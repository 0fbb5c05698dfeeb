import ConfabTestSupport
import Foundation
import Testing

/// `confab devices link` on a terminal (the default path a person runs) draws a QR code of
/// the command to run on the new machine; read back from the screen by zbar, it is that
/// command, with the code the screen shows.
@Suite(.serialized) struct DeviceLinkQRTests {
    @Test func theQRCodeOnTheScreenIsTheCommandWithTheCodeShown() async throws {
        try #require(Tmux.isAvailable, "the terminal test needs tmux (make test-deps installs it)")
        try #require(QRReader.isAvailable, "zbarimg is needed (make test-deps installs zbar-tools)")
        let root = try CLIRunner.temporaryDirectory()
        let alice = CLIRunner(data: root.appendingPathComponent("alice"))
        _ = try alice.initialize(name: "alice")
        let tmux = Tmux(directory: root)
        defer { tmux.stop() }
        let command =
            "\(ConfabBinary.url.path) --data \(alice.data.path) devices link --no-discovery --timeout 60"
        try tmux.start(
            session: "link", width: 120, height: 60, command: command,
            environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8"])
        let screen = try await tmux.waitFor("link", text: "Waiting for the new machine")
        let codeLine = try #require(screen.first { $0.hasPrefix("Link code: ") })
        let code = String(codeLine.dropFirst("Link code: ".count).prefix { !$0.isWhitespace })
        let read = try QRReader.read(modules: QRReader.modules(fromScreen: screen), in: root)
        #expect(read.hasPrefix("confab init --link \(code) --peer "))
        #expect(screen.contains { $0.trimmingCharacters(in: .whitespaces) == read })
    }
}
