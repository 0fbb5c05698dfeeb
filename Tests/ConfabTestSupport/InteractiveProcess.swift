import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A `confab` process talked to line by line through pipes, as a script or a screen reader
/// user would: lines in, output watched as it arrives.
public final class InteractiveProcess: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let lock = NSLock()
    private var collected = Data()

    public init(data: URL, _ arguments: [String], environment extra: [String: String] = [:]) throws {
        process.executableURL = ConfabBinary.url
        process.arguments = ["--data", data.path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment.merge(extra) { $1 }
        process.environment = environment
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.lock()
            self.collected.append(data)
            self.lock.unlock()
        }
        try process.run()
    }

    public var output: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: collected, as: UTF8.self)
    }

    public func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Ends standard input (Ctrl+D).
    public func closeInput() throws {
        try input.fileHandleForWriting.close()
    }

    /// Waits until the output contains `text`; on timeout the error shows the output.
    public func waitFor(_ text: String, timeout: TimeInterval = 30) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if output.contains(text) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ConfabBinary.Failure("timed out after \(Int(timeout)) s waiting for \"\(text)\"; output:\n\(output)")
    }

    /// Asks it to stop (SIGTERM), as a service manager does.
    public func terminate() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    }

    /// Waits for the process to exit and returns its status.
    public func waitForExit(timeout: TimeInterval = 30) async throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw ConfabBinary.Failure("still running after \(Int(timeout)) s; output:\n\(output)")
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
