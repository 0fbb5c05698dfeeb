import Dispatch

/// A dispatch source to keep behind a lock. Dispatch sources are thread-safe objects (any
/// thread may cancel one), but the Dispatch module does not say so to Swift's checker.
struct SendableDispatchSource<Source>: @unchecked Sendable {
    let source: Source
}
