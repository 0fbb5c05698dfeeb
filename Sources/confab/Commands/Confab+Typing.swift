import ArgumentParser
import ConfabClient
import ConfabNode

extension Confab {
    struct Typing: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or set whether others see when you type, and you see them.",
            discussion: """
                On by default. Off, this machine sends no "is typing…" and shows nobody's \
                (Ctrl+T in the chat sets the same). A running node follows the change at once.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        enum Setting: String, ExpressibleByArgument, CaseIterable {
            case on, off
        }

        @Argument(help: "on or off; without it, the current setting.")
        var setting: Setting?

        struct Info: Encodable {
            let typingIndicators: Bool
        }

        func run() throws {
            let store = try global.open().store
            if let setting { try store.setTypingIndicators(setting == .on) }
            let on = try store.typingIndicators()
            if output.json {
                try JSONOutput.print(Info(typingIndicators: on))
            } else {
                Console.out(
                    on
                        ? "Typing indicators on: others see when you type, and you see them"
                        : "Typing indicators off: nobody sees when you type, and you see nobody")
            }
        }
    }
}
