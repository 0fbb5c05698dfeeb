import ConfabTestSupport
import Foundation

/// Where the device node tests (linking, renaming, removing) start: Alice's desktop and
/// Bob as real nodes on 127.0.0.1 with discovery off, met, Bob's first message on Alice's
/// desktop; and a laptop with no identity yet, to be linked to Alice.
struct DeviceNodeFixture {
    static let hello = "hello from Bob"

    let alice: NodeProcess
    let bob: NodeProcess
    let laptop: NodeProcess

    init() throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["Alice", "Bob"], root: root)
        (alice, bob) = (nodes[0], nodes[1])
        laptop = NodeProcess(linking: "laptop", root: root)
    }

    /// Starts Alice's and Bob's nodes, Bob dialling Alice, and waits until Bob's message
    /// reached her desktop.
    func meet() async throws {
        try alice.start(discovery: false, extra: ["--no-web"])
        try bob.start(discovery: false, extra: ["--no-web", "--peer", alice.peerAddress])
        try await waitUntil(timeout: 30, "Alice and Bob to meet") {
            try alice.onlinePeers() == ["Bob"] && bob.onlinePeers() == ["Alice"]
        }
        guard try bob.cli(["send", "Alice", Self.hello]).status == 0 else {
            throw ConfabBinary.Failure("Bob could not send to Alice")
        }
        try await waitUntil(timeout: 30, "Alice's desktop to have Bob's message") {
            try alice.texts(with: "Bob") == [Self.hello]
        }
    }

    func stop() {
        for node in [laptop, alice, bob] { try? node.stop() }
    }
}
