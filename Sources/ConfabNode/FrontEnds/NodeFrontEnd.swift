import ConfabClient
import Logging
import ServiceLifecycle

/// A front end the node serves itself, beside its sessions (the web app): made when the
/// node starts, with the node's own messenger, and run as a service of the node's group, so
/// it starts and stops with the node. Kept to this protocol so the node's target needs no
/// HTTP server of its own.
public protocol NodeFrontEnd: Sendable {
    /// The service that serves it. `serving` is called with the address once it is served
    /// (`confab status` shows it), or with nil when it could not be.
    func service(
        messenger: LocalMessenger, directory: DataDirectory, logger: Logger,
        serving: @escaping @Sendable (String?) -> Void
    ) -> any Service
}
