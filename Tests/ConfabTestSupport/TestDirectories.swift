import Foundation
import Synchronization

/// The directories this test process made (`ConfabBinary.temporaryDirectory`), removed when
/// it exits. Tests stop their nodes, but few removed their directories, and more than a
/// thousand piled up in /tmp over a few days of runs. `CONFAB_KEEP_TEST_DIRS=1` keeps them,
/// to look at the stores and logs a failing test left.
enum TestDirectories {
    private static let made = Mutex<[URL]>([])
    /// Registers the removal at exit once, on first use.
    private static let removalAtExit: Void = {
        atexit { TestDirectories.removeAll() }
    }()

    static func track(_ url: URL) {
        _ = removalAtExit
        made.withLock { $0.append(url) }
    }

    private static func removeAll() {
        guard ProcessInfo.processInfo.environment["CONFAB_KEEP_TEST_DIRS"] == nil else { return }
        for url in made.withLock({ $0 }) { try? FileManager.default.removeItem(at: url) }
    }
}
