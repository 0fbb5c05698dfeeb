import ConfabTestSupport
import Foundation
import Testing

/// The scripts in Examples/ are documentation; running them keeps them true.
@Suite struct ExamplesTests {
    @Test func offlineTourRuns() throws {
        let root = ConfabBinary.packageRoot
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            root.appendingPathComponent("Examples/offline-tour.sh").path, try CLIRunner.temporaryDirectory().path,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["CONFAB"] = CLIRunner.binary.path
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text.contains("Started Hike"))
        #expect(text.contains("You: all green  (sending…)"))
        #expect(text.contains("«trailhead»"))
    }
}
