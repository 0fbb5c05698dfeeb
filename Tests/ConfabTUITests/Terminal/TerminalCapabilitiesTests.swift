import Testing

@testable import ConfabTUI

@Suite struct TerminalCapabilitiesTests {
    @Test func aTerminalOnBothEndsWithAKnownTermIsFullScreenInColour() {
        let capabilities = TerminalCapabilities(
            inputIsTerminal: true, outputIsTerminal: true, environment: ["TERM": "xterm-256color"])
        #expect(capabilities == TerminalCapabilities(fullScreen: true, colors: true))
    }

    @Test func noFullScreenWithoutATerminalOnBothEnds() {
        let environment = ["TERM": "xterm"]
        #expect(
            !TerminalCapabilities(inputIsTerminal: false, outputIsTerminal: true, environment: environment).fullScreen)
        let piped = TerminalCapabilities(inputIsTerminal: true, outputIsTerminal: false, environment: environment)
        #expect(piped == TerminalCapabilities(fullScreen: false, colors: false))
    }

    @Test func aDumbOrMissingTermIsPlainLines() {
        for environment in [["TERM": "dumb"], ["TERM": ""], [:]] {
            let capabilities = TerminalCapabilities(
                inputIsTerminal: true, outputIsTerminal: true, environment: environment)
            #expect(capabilities == TerminalCapabilities(fullScreen: false, colors: false))
        }
    }

    @Test func noColorDropsColoursButNotFullScreen() {
        let capabilities = TerminalCapabilities(
            inputIsTerminal: true, outputIsTerminal: true, environment: ["TERM": "xterm", "NO_COLOR": "1"])
        #expect(capabilities == TerminalCapabilities(fullScreen: true, colors: false))
        // no-color.org: an empty NO_COLOR does not count, as in the command-line output.
        let empty = TerminalCapabilities(
            inputIsTerminal: true, outputIsTerminal: true, environment: ["TERM": "xterm", "NO_COLOR": ""])
        #expect(empty.colors)
    }
}
