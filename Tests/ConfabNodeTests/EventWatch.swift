import ConfabCrypto
import ConfabModel
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `confab watch --json` on a running node, as a script runs it: one JSON object a line,
/// collected as the lines come.
final class EventWatch: @unchecked Sendable {
    private let node: NodeProcess
    private let process = Process()
    private let lock = NSLock()
    private var collected = Data()

    init(_ node: NodeProcess) throws {
        self.node = node
        process.executableURL = NodeProcess.binary
        process.arguments = ["--data", node.data.path, "watch", "--json"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        output.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                return
            }
            guard let self else { return }
            self.lock.lock()
            self.collected.append(data)
            self.lock.unlock()
        }
        try process.run()
    }

    /// Everything printed so far (an error, too, if `watch` failed).
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: collected, as: UTF8.self)
    }

    /// The events printed so far (whole lines only).
    var events: [[String: Any]] {
        text.split(separator: "\n", omittingEmptySubsequences: true).compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    /// The texts of the `message` events so far.
    var messageTexts: [String] {
        events.compactMap { ($0["message"] as? [String: Any])?["text"] as? String }
    }

    /// A watch is told only what happens once the node has taken its request, and prints
    /// nothing until then. This waits until it has: a message to "probe" (a throwaway key
    /// that never comes online, added as a peer for this) is written through the node,
    /// which reports it to every watcher; it is written again each second until the watch
    /// shows one. The probe's conversation stays, with its messages queued.
    func waitUntilSubscribed(timeout: TimeInterval = 30) async throws {
        let probe = NodeID(SigningKeyPair.generate().publicKey)
        let added = try node.cli(["peers", "add", probe.hex, "--name", "probe"])
        guard added.status == 0 else { throw NodeProcess.Failure("peers add probe: \(added.stderr)") }
        let deadline = Date().addingTimeInterval(timeout)
        var sent = 0
        while Date() < deadline {
            sent += 1
            let result = try node.cli(["send", "probe", "watch probe \(sent)"])
            guard result.status == 0 else { throw NodeProcess.Failure("send probe: \(result.stderr)") }
            let again = min(deadline, Date().addingTimeInterval(1))
            while Date() < again {
                if messageTexts.contains(where: { $0.hasPrefix("watch probe ") }) { return }
                guard process.isRunning else {
                    throw NodeProcess.Failure("watch exited (\(process.terminationStatus)): \(text)")
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        throw NodeProcess.Failure(
            "timed out after \(Int(timeout)) s waiting for \(node.name)'s watch to report a probe")
    }

    /// Waits until the events so far satisfy `condition`.
    func waitFor(
        _ what: String, timeout: TimeInterval = 30, _ condition: ([[String: Any]]) throws -> Bool
    ) async throws {
        do {
            try await waitUntil(timeout: timeout, what, every: 0.05) { try condition(events) }
        } catch {
            throw NodeProcess.Failure("\(error); the watch printed:\n\(text.suffix(4000))")
        }
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
