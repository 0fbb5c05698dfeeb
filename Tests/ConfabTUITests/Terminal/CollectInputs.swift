import Foundation
import NIOConcurrencyHelpers

@testable import ConfabTUI

/// Collects what the stream reports until `done` says enough or the time is up (then
/// whatever arrived, for the expectation to show).
func collect(
    _ stream: AsyncStream<TerminalInput>, timeout: Duration = .seconds(5),
    until done: @escaping @Sendable ([TerminalInput]) -> Bool
) async -> [TerminalInput] {
    let collected = NIOLockedValueBox<[TerminalInput]>([])
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            for await input in stream {
                let enough = collected.withLockedValue { inputs in
                    inputs.append(input)
                    return done(inputs)
                }
                if enough { return }
            }
        }
        group.addTask { try? await Task.sleep(for: timeout) }
        await group.next()
        group.cancelAll()
    }
    return collected.withLockedValue { $0 }
}

extension [TerminalInput] {
    var keys: [Key] {
        flatMap { input -> [Key] in
            if case .keys(let keys) = input { return keys }
            return []
        }
    }
}
