import ConfabModel
import ConfabStore

/// The handlers of a link offer made from a front end (Protocol.md §20.10): the node runs
/// it, since it listens for the new machine while the front end only shows the code.
extension LocalMessenger {
    public func perform(_ operation: Operations.OfferLink) async throws -> LinkOfferStarted {
        if let person = try local.store.linkedPerson() {
            throw StoreError.invalidInput(
                "only the machine that holds \(try local.displayName())'s person key (\(person.shortHex), the first "
                    + "device) can link new machines: open its web app, or run \"confab devices link\" there")
        }
        return try await runningNode(for: "link a new machine").offerLink()
    }

    public func perform(_ operation: Operations.ConfirmLink) async throws -> ControlEmpty {
        try await runningNode(for: "answer a link").confirmLink(operation.id, yes: operation.yes)
        return ControlEmpty()
    }

    public func perform(_ operation: Operations.CancelLink) async throws -> ControlEmpty {
        try await runningNode(for: "end a link offer").cancelLink(operation.id)
        return ControlEmpty()
    }

    /// An offer lives in a node: without one here there is nothing to listen for the new machine.
    private func runningNode(for what: String) throws -> any RunningNode {
        guard let node else {
            throw StoreError.invalidInput(
                "no node runs here to \(what): start one with \"confab up\", or run \"confab devices link\"")
        }
        return node
    }
}
