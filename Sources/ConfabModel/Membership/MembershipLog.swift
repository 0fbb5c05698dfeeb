/// Every membership event held of one conversation, in display order: membership can be
/// computed from it for any causally closed subset — everything held (the current
/// members), or an entry's view (what its author knew, Protocol.md §4.8.2).
public struct MembershipLog: Sendable, Equatable {
    public let create: MembershipEvent
    public private(set) var changes: [MembershipEvent]

    public init(create: MembershipEvent, changes: [MembershipEvent] = []) {
        self.create = create
        self.changes = changes.sorted { $0.order < $1.order }
    }

    public mutating func insert(_ change: MembershipEvent) {
        let index = changes.firstIndex { change.order < $0.order } ?? changes.count
        changes.insert(change, at: index)
    }

    /// The members of everything held.
    public var current: Membership { Membership(create: create, changes: changes) }

    /// The members as an entry whose causal clock is `clock` saw them.
    public func view(_ clock: VectorClock) -> Membership {
        Membership(create: create, changes: changes.lazy.filter { $0.isCovered(by: clock) })
    }

    /// Every key that was ever named a member, whether or not the change that named it took
    /// effect: only they can hold entries in the conversation, so only they appear in clocks.
    public var everMembers: Set<NodeID> {
        changes.reduce(into: Set(create.add)) { $0.formUnion($1.add) }
    }

    /// The keys each epoch was sealed to, by epoch.
    public var epochs: [EntryRef: [NodeID]] {
        var epochs = [create.ref: create.add]
        for change in changes { if let recipients = change.recipients { epochs[change.ref] = recipients } }
        return epochs
    }
}
