import Foundation

extension Process {
    /// Waits until the process has exited, polling its state, for at most `seconds`;
    /// whether it exited. The caller decides what a process still running means.
    public func waitForExit(within seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning, Date() < deadline { usleep(20_000) }
        return !isRunning
    }
}
