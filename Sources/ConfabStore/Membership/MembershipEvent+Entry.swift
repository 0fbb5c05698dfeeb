import ConfabModel

extension MembershipEvent {
    /// The create entry: the first members, and the first epoch. Its person is its author,
    /// or, written by a device (no participant), the person it lists first (§20.11).
    init(create entry: Entry, body: CreateBody) {
        self.init(
            author: entry.author, seq: entry.seq, order: Self.order(of: entry), add: body.participantIDs, remove: [],
            recipients: body.participantIDs, frontier: entry.frontier,
            person: Self.createPerson(author: entry.author, participants: body.participantIDs))
    }

    /// Who a create counts as: a device's create is its first participant's, which the
    /// store checked against the lists held before taking it (Protocol.md §20.11).
    static func createPerson(author: NodeID, participants: [NodeID]) -> NodeID {
        participants.contains(author) ? author : participants.first ?? author
    }

    /// `view`: the author's, where the body alone does not say whom a key went to (a large
    /// group's epoch goes to every member after the change, Protocol.md §19.3).
    /// `person`: who the author counts as (Protocol.md §20.11), the author itself when nil.
    init(entry: Entry, members body: MembersBody, view: Membership? = nil, person: NodeID? = nil) {
        var event = Self(
            author: entry.author, seq: entry.seq, order: Self.order(of: entry), add: body.add, remove: body.remove,
            recipients: body.recipients, frontier: entry.frontier, person: person)
        if body.wrapped != nil, let view {
            event = Self(
                author: event.author, seq: event.seq, order: event.order, add: event.add, remove: event.remove,
                recipients: view.members(after: event), frontier: event.frontier, person: event.person)
        }
        self = event
    }

    /// Membership folds by the entry's own clock sum, never the capped one a forked author
    /// gets for display (§4.8.2): every node must fold alike.
    private static func order(of entry: Entry) -> DisplayOrderKey {
        DisplayOrderKey(clockSum: entry.clock.sum, timestamp: entry.timestamp, author: entry.author, seq: entry.seq)
    }
}
