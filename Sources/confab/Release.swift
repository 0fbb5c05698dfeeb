import ConfabWire

/// What `confab --version` says: the release (CHANGELOG.md names what each changed) and the
/// protocol version this build speaks in its Hello and beacons (Protocol.md §10.2).
enum Release {
    /// "-dev" until the commit is tagged: a build between releases says so.
    static let number = "0.2.0-dev"

    static var description: String { "\(number) (protocol \(SessionCodec.protocolVersion))" }
}
