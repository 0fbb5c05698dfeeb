import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// L4: the control socket answers only its owner, even when its file mode was loosened.
@Suite(.serialized) struct ControlSocketPeerTests {
    /// Sends `status` as `uid` (through setpriv) and returns what came back.
    func status(via socket: String, as uid: Int?) throws -> String {
        let script = """
            import socket
            s = socket.socket(socket.AF_UNIX); s.settimeout(30); s.connect("\(socket)")
            s.sendall(b'{"v": 1, "id": 1, "method": "status"}\\n')
            try: print(s.recv(65536).decode())
            except Exception as e: print("error", e)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: uid == nil ? "/usr/bin/python3" : "/usr/bin/setpriv")
        process.arguments =
            (uid.map { ["--reuid=\($0)", "--regid=\($0)", "--clear-groups", "/usr/bin/python3"] } ?? []) + [
                "-c", script,
            ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Acting as another user needs root and setpriv (CI runs as root); skipped elsewhere.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func anotherUserIsRefusedEvenThroughALoosenedMode() async throws {
        let root = try temporaryRoot()
        let alice = try NodeProcess(name: "alice", root: root)
        defer { try? alice.stop() }
        try alice.start(discovery: false)
        let socket = alice.data.appendingPathComponent("control.sock").path
        #expect(try status(via: socket, as: nil).contains("\"ok\":true"))
        // Loosen every mode on the way, as a careless hand might.
        var directory = alice.data
        while directory.path != "/" {
            chmod(directory.path, 0o755)
            directory.deleteLastPathComponent()
            if directory.path == "/tmp" { break }
        }
        chmod(socket, 0o666)
        let answer = try status(via: socket, as: 65534)
        #expect(!answer.contains("\"ok\""), "\(answer)")
        #expect(alice.log.contains("refused a connection from another user"))
    }
}
