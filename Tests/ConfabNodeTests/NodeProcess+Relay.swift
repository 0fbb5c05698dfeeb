import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NodeProcess {
    /// The metrics URL the node logged last (`--metrics 127.0.0.1:0` picks a free port at
    /// every start).
    func metricsURL() throws -> URL {
        var found: URL?
        try waitUntil(timeout: 30, "\(name)'s metrics address in its log") {
            found =
                log.split(separator: "\n").reversed().lazy.compactMap { line -> URL? in
                    guard
                        let range = line.range(of: #"http://127\.0\.0\.1:[0-9]+/metrics"#, options: .regularExpression)
                    else { return nil }
                    return URL(string: String(line[range]))
                }.first
            return found != nil
        }
        return found!
    }

    /// One scrape of /metrics over loopback: sample name (with labels) → value.
    func scrapeMetrics() throws -> [String: Double] {
        let text = try httpGet(try metricsURL())
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { samples[String(parts[0])] = value }
        }
        return samples
    }

    func outboxCount() throws -> Int? {
        guard let status = try? cli(["status", "--json"]).json() as? [String: Any] else { return nil }
        if let count = status["outbox"] as? Int { return count }
        return (status["outbox"] as? String).flatMap(Int.init)
    }

    /// Statuses of my messages in my most recent thread with `peer`, oldest first.
    func statuses(with peer: String) throws -> [String] {
        let history = try cli(["history", peer, "--json", "--no-mark-read", "--limit", "1000"])
        let messages = (try? history.json()) as? [[String: Any]] ?? []
        return messages.filter { $0["mine"] as? Bool == true }.compactMap { $0["status"] as? String }
    }
}

/// A blocking GET, for tests only.
func httpGet(_ url: URL) throws -> String {
    final class Box: @unchecked Sendable {
        var result: Result<String, any Error> = .failure(NodeProcess.Failure("no response"))
    }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    URLSession.shared.dataTask(with: url) { data, response, error in
        if let error {
            box.result = .failure(error)
        } else if let response = response as? HTTPURLResponse, response.statusCode != 200 {
            box.result = .failure(NodeProcess.Failure("GET \(url): HTTP \(response.statusCode)"))
        } else {
            box.result = .success(String(decoding: data ?? Data(), as: UTF8.self))
        }
        done.signal()
    }.resume()
    guard done.wait(timeout: .now() + 30) == .success else { throw NodeProcess.Failure("GET \(url) timed out") }
    return try box.result.get()
}
