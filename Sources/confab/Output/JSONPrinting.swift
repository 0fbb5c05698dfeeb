import ConfabClient
import ConfabNode

extension JSONOutput {
    /// Prints one JSON document on one line (so `--json` output is also valid JSON Lines).
    static func print(_ value: some Encodable) throws {
        Console.out(try line(value))
    }
}
