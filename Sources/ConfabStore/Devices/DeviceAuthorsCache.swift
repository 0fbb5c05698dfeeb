import ConfabModel
import Synchronization

/// The device lists held, folded into whom each author key counts as (`DeviceAuthors`), so
/// that the append path, which asks for every entry, reads and folds the lists only after
/// one changed.
///
/// A list is written in a write of its own; when it commits, the cache is forgotten and its
/// generation moves. A read that began before that commit may still be folding the lists as
/// they were: it keeps its result only if the generation did not move meanwhile.
final class DeviceAuthorsCache: Sendable {
    private let state = Mutex<(generation: Int, authors: DeviceAuthors?)>((0, nil))

    /// The cached value, or the generation a value read now would be kept under.
    func cached() -> (generation: Int, authors: DeviceAuthors?) {
        state.withLock { $0 }
    }

    func keep(_ authors: DeviceAuthors, generation: Int) {
        state.withLock { if $0.generation == generation { $0.authors = authors } }
    }

    func forget() {
        state.withLock { $0 = ($0.generation + 1, nil) }
    }
}
