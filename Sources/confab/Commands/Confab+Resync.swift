import ArgumentParser
import ConfabClient
import ConfabNode

extension Confab {
    struct Resync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sync now: the running node re-announces its clocks to every peer and redials known peers.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            do {
                try await global.open().messenger().resync()
            } catch let error as ClientError where error.isNotRunning {
                throw CLIError(
                    "no node is running for \(global.directory.path), so there is nothing to resync; "
                        + "start one with \"confab up\" (or \"confab\")")
            }
            Console.out("Resyncing: clocks re-announced to every peer, known peers redialled.")
        }
    }
}
