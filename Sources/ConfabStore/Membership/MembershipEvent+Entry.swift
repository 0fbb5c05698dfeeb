import ConfabModel

extension MembershipEvent {
    /// The create entry: the first members, and the first epoch.
    init(create entry: Entry, body: CreateBody) {
        self.init(
            author: entry.author, seq: entry.seq, order: Self.order(of: entry), add: body.participantIDs, remove: [],
            recipients: body.participantIDs, frontier: entry.frontier)
    }

    init(entry: Entry, members body: MembersBody) {
        self.init(
            author: entry.author, seq: entry.seq, order: Self.order(of: entry), add: body.add, remove: body.remove,
            recipients: body.recipients, frontier: entry.frontier)
    }

    /// Membership folds by the entry's own clock sum, never the capped one a forked author
    /// gets for display (§4.8.2): every node must fold alike.
    private static func order(of entry: Entry) -> DisplayOrderKey {
        DisplayOrderKey(clockSum: entry.clock.sum, timestamp: entry.timestamp, author: entry.author, seq: entry.seq)
    }
}
