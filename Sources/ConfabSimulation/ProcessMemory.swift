import Foundation

/// The process's resident memory now and at its peak, in MiB, from /proc (Linux); nil
/// where there is no /proc.
enum ProcessMemory {
    static var residentMiB: Double? { field("VmRSS") }
    static var peakMiB: Double? { field("VmHWM") }

    private static func field(_ name: String) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
            return kilobytes.map { $0 / 1024 }
        }
        return nil
    }
}
