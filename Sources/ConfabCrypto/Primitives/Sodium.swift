import CSodium

/// One-time libsodium initialisation. Every public entry point of this module calls
/// `Sodium.ensureInitialized()` (cheap after the first call) so callers never have to.
public enum Sodium {
    private static let initResult: Int32 = sodium_init()

    public static func ensureInitialized() {
        // sodium_init returns 0 on first success and 1 when already initialised; -1 means the
        // library cannot be used at all (no entropy source), which no caller can recover from.
        precondition(initResult >= 0, "libsodium failed to initialise")
    }

    /// The libsodium version string, for diagnostics and benchmark reports.
    public static var version: String {
        ensureInitialized()
        return String(cString: sodium_version_string())
    }
}
