import ArgumentParser
import ConfabClient
import ConfabNode

/// How a node process reports on itself: `up` and `relay` share these.
struct OperationsOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Serve Prometheus metrics at http://HOST:PORT/metrics (bind to 127.0.0.1 unless a trusted network must scrape it).",
            valueName: "HOST:PORT"))
    var metrics: String?

    @Option(help: ArgumentHelp("Log format: text, or json (one object per line, for log collectors)."))
    var logFormat: LogFormat = .text

    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    func validate() throws {
        if let metrics {
            let parts = metrics.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count >= 2, let port = Int(parts.last!), (0...65535).contains(port), !parts[0].isEmpty else {
                throw ValidationError("--metrics must be HOST:PORT, e.g. 127.0.0.1:9461")
            }
        }
    }
}
