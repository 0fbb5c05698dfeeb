import ConfabCrypto
import ConfabModel
import ConfabTestSupport
import Foundation

/// Files for transfer tests: pseudo-random content (deterministic per seed), and what the
/// CLI says about files on a node.
enum SampleFiles {
    /// Writes `size` bytes made from `seed` at `url`, creating its folder.
    @discardableResult
    static func write(_ url: URL, size: Int, seed: UInt64 = 1) throws -> URL {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var random = SplitMix64(seed: seed)
        try Data(random.bytes(size)).write(to: url)
        return url
    }

    static func sha256(_ url: URL) throws -> String {
        Hex.encode(Hash.sha256([UInt8](try Data(contentsOf: url))))
    }
}

extension NodeProcess {
    /// `files --json`: every file message this node shows.
    func files() throws -> [[String: Any]] {
        let result = try cli(["files", "--json"])
        guard result.status == 0 else { throw Failure("files failed: \(result.stderr)") }
        return (try result.json() as? [[String: Any]]) ?? []
    }

    /// The file with this id, as `files --json` shows it.
    func file(_ id: String) throws -> [String: Any]? {
        try files().first { ($0["id"] as? String)?.hasPrefix(id) == true }
    }

    /// Bytes of the file held here (0 before its message arrived).
    func heldBytes(of id: String) throws -> Int {
        (try file(id)?["held"] as? Int) ?? 0
    }

    func waitForFile(_ id: String, state: String = "complete", timeout: TimeInterval = 120) async throws {
        try await waitUntil(timeout: timeout, "\(name) to hold file \(id.prefix(12)) (\(state))") {
            (try file(id)?["state"] as? String) == state
        }
    }

    /// Sends files with `send-file` and returns their ids (from `--json`).
    func sendFiles(to target: String, _ paths: [String], extra: [String] = []) throws -> [String] {
        let result = try cli(["send-file", target] + paths + ["--json"] + extra)
        guard result.status == 0 else { throw Failure("send-file failed (\(result.status)): \(result.stderr)") }
        return result.stdout.split(separator: "\n").compactMap {
            ((try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any])?["file"] as? String
        }
    }
}
