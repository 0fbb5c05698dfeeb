import ConfabModel

/// What happened to an entry offered to the store.
public enum AppendOutcome: Sendable, Equatable {
    /// Newly stored.
    case appended(Entry)
    /// Already held (or deliberately deleted here); nothing changed.
    case duplicate
}
