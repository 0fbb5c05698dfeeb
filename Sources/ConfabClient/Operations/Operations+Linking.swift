import ConfabModel
import ConfabStore

extension Operations {
    /// Opens a link offer on the running node (Protocol.md §13, §20.10): what `confab devices
    /// link` does in a terminal, for a front end that shows the code itself. Its progress
    /// arrives as `link` events on `watch`; one offer at a time per node.
    public struct OfferLink: ConfabOperation {
        public typealias Answer = LinkOfferStarted
        public static let method = OperationMethod.linkOffer

        public init() {}

        public func perform(on messenger: some Messenger) async throws -> LinkOfferStarted {
            try await messenger.perform(self)
        }
    }

    /// This person's answer to the words of the running offer: yes only when they match.
    public struct ConfirmLink: ConfabOperation {
        public typealias Answer = ControlEmpty
        public static let method = OperationMethod.linkConfirm
        /// The offer answered; nil for whichever runs (there is at most one).
        public var id: String?
        public var yes: Bool

        public init(id: String? = nil, yes: Bool) {
            self.id = id
            self.yes = yes
        }

        public func perform(on messenger: some Messenger) async throws -> ControlEmpty {
            try await messenger.perform(self)
        }
    }

    /// Ends the running offer (a front end's dialog closed): the code is no good from now on.
    public struct CancelLink: ConfabOperation {
        public typealias Answer = ControlEmpty
        public static let method = OperationMethod.linkCancel
        /// The offer ended; nil for whichever runs.
        public var id: String?

        public init(id: String? = nil) { self.id = id }

        public func perform(on messenger: some Messenger) async throws -> ControlEmpty {
            try await messenger.perform(self)
        }
    }
}
