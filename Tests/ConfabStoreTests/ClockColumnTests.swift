import ConfabModel
import Foundation
import Testing

@testable import ConfabStore

/// Clocks are stored as JSON written by hand for speed; it must be exactly what the
/// general encoder writes, and read back whatever either wrote.
@Suite struct ClockColumnTests {
    @Test func handWrittenJSONMatchesFoundationAndRoundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        for width in [0, 1, 2, 5, 64] {
            var clock = VectorClock()
            for _ in 0..<width {
                let id = NodeID(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })!
                clock[id] = UInt64.random(in: 1...Limits.maxSeq, using: &generator)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            #expect(clock.json == String(decoding: try encoder.encode(clock), as: UTF8.self))
            #expect(try VectorClock(json: clock.json) == clock)
        }
    }

    @Test func malformedJSONIsAnErrorNotACrash() {
        for text in [
            "", "{", "{\"zz\":1}", "{\"" + String(repeating: "a", count: 64) + "\":}", "[1]",
            "{\"a\":99999999999999999999999}",
        ] {
            #expect(throws: (any Error).self) { try VectorClock(json: text) }
        }
    }
}
