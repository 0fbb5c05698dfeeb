import ConfabTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `confab status | head -1`: the reader goes away before the command has written
/// everything. The command ends as any pipe's writer does, by SIGPIPE and without a word,
/// also once it has started SwiftNIO (which ignores SIGPIPE, turning the write into an error
/// that Foundation's FileHandle trapped on with a crash report).
@Suite struct ClosedPipeTests {
    @Test(arguments: [["status"], ["status", "--json"], ["list"]])
    func aCommandWhoseReaderLeftEndsQuietlyAsAPipesWriterDoes(_ arguments: [String]) async throws {
        let root = try temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let node = try NodeProcess(name: "alice", root: root)
        try node.start(discovery: false)
        defer { try? node.stop() }

        let output = Pipe()
        try output.fileHandleForReading.close()
        let errors = Pipe()
        let process = Process()
        process.executableURL = NodeProcess.binary
        process.arguments = ["--data", node.data.path] + arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGPIPE, "\(stderr)")
        #expect(stderr.isEmpty, "\(stderr)")
    }
}
