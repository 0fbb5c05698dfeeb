import ConfabTUI
import Foundation

/// One yes-or-no answer read from standard input: a line of `y` or `yes` (any case) is yes;
/// anything else, or the end of input, is no. Read on a thread of its own, so the link can
/// end while the person has not answered yet.
enum YesNoQuestion {
    static func ask(_ question: String) async -> Bool {
        StandardStreams.out(question)
        return await withCheckedContinuation { continuation in
            let thread = Thread {
                let line = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
                continuation.resume(returning: line == "y" || line == "yes")
            }
            thread.start()
        }
    }
}
