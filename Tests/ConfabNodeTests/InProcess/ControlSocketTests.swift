import ConfabClient
import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabNode

/// The control socket of a node in this process, spoken to line by line as a script in
/// another language would.
@Suite(.serialized) struct ControlSocketTests {
    /// Writes `lines` on one connection and returns the answer to each.
    private func exchange(_ lines: [String], with directory: DataDirectory) throws -> [String] {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw NodeProcess.Failure("socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(ControlServer.socketPath(directory).utf8CString)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.map { UInt8(bitPattern: $0) }.prefix(raw.count))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw NodeProcess.Failure("connect: \(errno)") }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        handle.write(Data(lines.map { $0 + "\n" }.joined().utf8))
        var received = Data()
        while received.split(separator: UInt8(ascii: "\n")).count < lines.count {
            let chunk = handle.availableData
            guard !chunk.isEmpty else { break }
            received += chunk
        }
        return received.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func badLinesAreAnsweredWithWhatIsWrongAndTheConnectionGoesOn() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        try await alice.start()
        let answers = try exchange(
            [
                #"{"id":1,"method":"status"}"#, "not json",
                #"{"v":1,"id":3,"method":"set_trust","params":{"peer":"bob","trust":"blocked"}}"#,
                #"{"v":1,"id":4,"method":"resync"}"#, #"{"v":1,"id":5,"method":"status"}"#,
            ], with: alice.local.directory)
        #expect(answers.count == 5)
        #expect(answers[0].contains(#""ok":false"#) && answers[0].contains("control protocol version 1"))
        #expect(answers[1].contains("not a JSON request"))
        #expect(answers[2].contains("params.peer"))
        #expect(answers[3] == #"{"id":4,"ok":true,"result":{},"v":1}"#)
        #expect(answers[4].contains(#""running":true"#) && answers[4].contains(#""id":5"#))
        await alice.stop()
    }

    /// What a front end asks first to learn that the node serves it (`Profile.messenger`):
    /// an empty line, answered without any work.
    @Test func anEmptyLineIsAnsweredAndTheConnectionGoesOn() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        try await alice.start()
        let answers = try exchange(["", #"{"v":1,"id":2,"method":"status"}"#], with: alice.local.directory)
        #expect(answers.count == 2)
        #expect(answers[0].contains(#""ok":false"#) && answers[0].contains("not a JSON request"))
        #expect(answers[1].contains(#""running":true"#))
        let attached = try await AttachedMessenger(local: alice.local)
        #expect(await attached.isServed())
        await attached.close()
        await alice.stop()
    }

    @Test func aRefusedLineInABurstOfSendsGetsItsOwnAnswer() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        try await alice.start()
        let bob = NodeID(SigningKeyPair.generate().publicKey)
        let conversation = try await alice.messenger.create(with: [bob], title: nil, firstMessage: nil).conversation
        func send(_ id: Int, _ text: String) -> String {
            #"{"v":1,"id":\#(id),"method":"send","params":{"conversation":"\#(conversation.hex)","text":"\#(text)"}}"#
        }
        let answers = try exchange([send(1, "one"), send(2, " "), send(3, "three")], with: alice.local.directory)
        #expect(answers.count == 3)
        #expect(answers[0].contains(#""ok":true"#) && answers[0].contains(#""id":1"#))
        #expect(answers[1].contains(#""ok":false"#) && answers[1].contains("empty"))
        #expect(answers[2].contains(#""ok":true"#) && answers[2].contains(#""id":3"#))
        #expect(try alice.local.store.history(conversation, limit: 10).compactMap(\.text) == ["one", "three"])
        await alice.stop()
    }
}
