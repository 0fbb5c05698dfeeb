import ConfabClient
import ConfabModel
import ConfabStore
import ConfabTestSupport
import Foundation
import Testing

/// Where the `confab devices` command tests start: Alice's data directory, initialised, and
/// a laptop's key, initialised beside it but not linked (a test lists it through the store).
struct DeviceCommandFixture {
    let root: URL
    let alice: CLIRunner
    let aliceKey: String
    let laptopKey: NodeID

    init() throws {
        root = try CLIRunner.temporaryDirectory()
        alice = CLIRunner(data: root.appendingPathComponent("alice"))
        aliceKey = try alice.initialize(name: "alice")
        let laptop = CLIRunner(data: root.appendingPathComponent("laptop"))
        laptopKey = try #require(NodeID(hex: try laptop.initialize(name: "laptop")))
    }

    /// The store of a data directory, to write lists as linking would.
    static func store(_ runner: CLIRunner) throws -> ConfabStore {
        try Profile.open(DataDirectory(url: runner.data)).store
    }
}
