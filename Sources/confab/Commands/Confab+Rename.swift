import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode

extension Confab {
    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the name others see for you.",
            discussion: """
                Peers learn it when they next connect; a running node reconnects to the \
                peers it is connected to at once, so they see it within seconds. A peer that \
                named you by hand ("confab peers add") keeps its own name for you.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "Your new display name (at most 64 bytes).")
        var name: String

        func run() async throws {
            let node = try global.open()
            let before = try node.displayName()
            let answer = try await node.messenger().perform(Operations.SetName(name))
            if output.json {
                try JSONOutput.print(answer)
                return
            }
            let shown = TextSanitizer.line(answer.name)
            Console.out(
                answer.name == before
                    ? "Your name is already \(shown)." : "You are now \(shown) (was \(TextSanitizer.line(before))).")
        }
    }
}
