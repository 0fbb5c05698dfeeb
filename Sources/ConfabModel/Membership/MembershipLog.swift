/// Every membership event held of one conversation, in display order: membership can be
/// computed from it for any causally closed subset — everything held (the current
/// members), or an entry's view (what its author knew, Protocol.md §4.8.2).
public struct MembershipLog: Sendable, Equatable {
    public let create: MembershipEvent
    public private(set) var changes: [MembershipEvent]
    /// The members of everything held.
    public private(set) var current: Membership
    /// Every key that was ever named a member, whether or not the change that named it took
    /// effect: only they can hold entries in the conversation, so only they appear in clocks.
    public private(set) var everMembers: Set<NodeID>
    /// The members of the create alone. With `current`, what nearly every entry's view is
    /// (its author had seen every change, or there are none): kept, so that judging each
    /// entry of a batch does not fold the changes again.
    private let createOnly: Membership

    /// A room's log (Protocol.md §18.2): its create alone, open to every writer; a room has
    /// no members entries.
    public init(room create: MembershipEvent) {
        self.create = create
        isLarge = false
        changes = []
        createOnly = Membership(room: create)
        current = createOnly
        everMembers = []
    }

    /// Whether this is a room's: anyone may write, nobody is listed.
    public var isOpen: Bool { current.isOpen }

    /// A large group's (Protocol.md §19): its entries' clocks name a few authors, so a view
    /// follows the members entries' own clocks too.
    public let isLarge: Bool

    public init(create: MembershipEvent, changes: [MembershipEvent] = [], isLarge: Bool = false) {
        self.create = create
        self.isLarge = isLarge
        self.changes = changes.sorted { $0.order < $1.order }
        createOnly = Membership(create: create, changes: [], isLarge: isLarge)
        current = Membership(create: create, changes: self.changes, isLarge: isLarge)
        everMembers = self.changes.reduce(into: Set(create.add)) { $0.formUnion($1.add) }
    }

    public mutating func insert(_ change: MembershipEvent) {
        let index = changes.firstIndex { change.order < $0.order } ?? changes.count
        changes.insert(change, at: index)
        current = Membership(create: create, changes: changes, isLarge: isLarge)
        everMembers.formUnion(change.add)
    }

    /// The members as an entry whose causal clock is `clock` saw them.
    public func view(_ clock: VectorClock) -> Membership {
        let covered = isLarge ? closure(of: clock) : changes.filter { $0.isCovered(by: clock) }
        if covered.count == changes.count { return current }
        if covered.isEmpty { return createOnly }
        return Membership(create: create, changes: covered, isLarge: isLarge)
    }

    /// A large group's view (Protocol.md §19.4): the changes `clock` covers, and those covered
    /// by the frontier of a change already in, until nothing more comes in. An entry that
    /// names the creator names every leave and removal the creator's changes had seen.
    private func closure(of clock: VectorClock) -> [MembershipEvent] {
        var inView = changes.map { $0.isCovered(by: clock) }
        var grew = true
        while grew {
            grew = false
            for (index, change) in changes.enumerated() where !inView[index] {
                if changes.indices.contains(where: { inView[$0] && change.isCovered(by: changes[$0].frontier) }) {
                    inView[index] = true
                    grew = true
                }
            }
        }
        return changes.indices.filter { inView[$0] }.map { changes[$0] }
    }

    /// The keys each epoch was sealed to, by epoch.
    public var epochs: [EntryRef: [NodeID]] {
        var epochs = [create.ref: create.add]
        for change in changes { if let recipients = change.recipients { epochs[change.ref] = recipients } }
        return epochs
    }
}
