import ConfabModel

extension Node {
    /// My person's list changed through this process's store (a removal from a front end):
    /// unlike another process's commit, the data version does not move for it, so nothing
    /// else would tell peers. The list goes first, then the rekeys, as Protocol.md §20.13
    /// writes them.
    public func ownDeviceListChanged(wrote conversations: Set<ConversationID>) throws {
        apply(try engine.offerOwnDeviceList())
        externalWrites.ownDeviceListCount = try local.store.deviceListCount(of: local.store.myPerson)
        guard !conversations.isEmpty else { return }
        apply(try engine.pushOwn(in: conversations))
        reachParticipants(of: conversations)
    }
}
