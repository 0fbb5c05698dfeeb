/// A conversation's members as computed from a causally closed set of membership events
/// (Protocol.md §4.8.2): the fold's result, with the epoch in force (§4.8.4) and, for each
/// key no longer a member, the change that last took it out.
public struct Membership: Sendable, Equatable {
    /// What one change did in the fold, for the history's system lines.
    public struct Applied: Sendable, Equatable {
        public let event: MembershipEvent
        /// Void: its author was no longer a member, or no longer the admin, by the time it
        /// came in the fold; it changed nothing.
        public let isVoid: Bool
        public let added: [NodeID]
        public let removed: [NodeID]
    }

    public let creator: NodeID
    /// Current members in join order: the creator, the create's other participants, then
    /// keys in the order they joined.
    public private(set) var members: [NodeID]
    /// The epoch whose key seals what is written now; nil when none was sealed to exactly
    /// the current members (a rekey is due).
    public private(set) var epochInForce: EntryRef?
    /// For each key that was a member and is not now, the change that last removed it.
    public private(set) var removedBy: [NodeID: MembershipEvent] = [:]
    public private(set) var applied: [Applied] = []
    /// A room's (Protocol.md §18.2): nobody is listed, anyone may write, and the key of the
    /// create is in force for good.
    public let isOpen: Bool
    /// A large group's (Protocol.md §19.4): only its creator adds, removes or rekeys, and its
    /// last epoch is in force whoever left since.
    public let isLarge: Bool

    /// A room's membership: open, its create's key in force.
    public init(room create: MembershipEvent) {
        creator = create.person
        members = []
        epochInForce = create.ref
        isOpen = true
        isLarge = false
    }

    /// Folds `create` and then `changes`, which must be in display order. A change written
    /// by a key concurrently with that key's removal (the removal had not seen it, and it
    /// had not seen the removal) is void, whatever its place in the order: a removed member
    /// cannot act after its removal by backdating (claiming it never saw it). Which removals
    /// hold depends on which changes are void, so the fold is repeated, voiding more each
    /// time, until nothing changes: at most once per change, and the same on every node.
    public init(create: MembershipEvent, changes: some Sequence<MembershipEvent>, isLarge: Bool = false) {
        let changes = Array(changes)
        var voided = Set<EntryRef>()
        var result = Self(folding: create, changes: changes, voided: voided, isLarge: isLarge)
        while true {
            var more = voided
            for change in changes where !voided.contains(change.ref) {
                // Who was removed is a person; what each had seen is counted in signing keys.
                guard let removal = result.removedBy[change.person], removal.ref != change.ref else { continue }
                let removalSawIt = removal.frontier[change.author] >= change.seq
                let itSawRemoval = change.frontier[removal.author] >= removal.seq
                if !removalSawIt, !itSawRemoval { more.insert(change.ref) }
            }
            guard more != voided else { break }
            voided = more
            result = Self(folding: create, changes: changes, voided: voided, isLarge: isLarge)
        }
        self = result
    }

    private init(folding create: MembershipEvent, changes: [MembershipEvent], voided: Set<EntryRef>, isLarge: Bool) {
        isOpen = false
        self.isLarge = isLarge
        creator = create.person
        members = [create.person] + create.add.filter { $0 != create.person }
        var epochs: [(ref: EntryRef, recipients: Set<NodeID>)] = [(create.ref, Set(create.add))]
        for change in changes {
            let outcome =
                voided.contains(change.ref)
                ? Applied(event: change, isVoid: true, added: [], removed: [])
                : Self.effect(of: change, on: members, admin: admin, onlyAdminKeys: isLarge)
            applied.append(outcome)
            guard !outcome.isVoid else { continue }
            members.removeAll { outcome.removed.contains($0) }
            members += outcome.added
            for key in outcome.removed { removedBy[key] = change }
            for key in outcome.added { removedBy[key] = nil }
            if let recipients = change.recipients { epochs.append((change.ref, Set(recipients))) }
        }
        // A void change starts no epoch (its key went to whoever its author chose). Of the
        // others, any sealed to exactly these members is safe; every node picks the same.
        // A large group's keys are the creator's alone to choose: its last is in force, and
        // a member who left holds it until the creator's next removal or rekey.
        let current = Set(members)
        epochInForce = isLarge ? epochs.last?.ref : epochs.last { $0.recipients == current }?.ref
    }

    /// The admin: the creator while a member, else the member who joined first; of a large
    /// group, its creator alone (Protocol.md §19.4).
    public var admin: NodeID? {
        if isOpen { return nil }
        if members.contains(creator) { return creator }
        return isLarge ? nil : members.first
    }

    /// The members after `change`, in join order: who a large group's fresh key is wrapped
    /// to (Protocol.md §19.3).
    public func members(after change: MembershipEvent) -> [NodeID] {
        members.filter { !change.remove.contains($0) } + change.add.filter { !members.contains($0) }
    }

    /// Whether `key` may write: a member, or anyone but the room's own key in a room.
    public func contains(_ key: NodeID) -> Bool { isOpen ? key != creator : members.contains(key) }

    private static func effect(
        of change: MembershipEvent, on members: [NodeID], admin: NodeID?, onlyAdminKeys: Bool
    ) -> Applied {
        let void = Applied(event: change, isVoid: true, added: [], removed: [])
        guard members.contains(change.person) else { return void }
        if change.isLeave { return Applied(event: change, isVoid: false, added: [], removed: [change.person]) }
        if !change.remove.isEmpty || onlyAdminKeys, change.person != admin { return void }
        return Applied(
            event: change, isVoid: false, added: change.add.filter { !members.contains($0) },
            removed: change.remove.filter { members.contains($0) })
    }

    /// Why `change`, written by its author with this membership as its view, breaks
    /// Protocol.md §4.8.3 (the author is known to be a member); nil when it does not.
    /// `everMembers` counts every key ever named as a member of the conversation.
    public func problem(with change: MembershipEvent, everMembers: Set<NodeID>) -> String? {
        if change.isLeave { return nil }
        // Only a leave takes its own author out: the member leaving must not choose the key
        // of those who stay (§4.8.1; a device's person is known only here, §20.11).
        if change.remove.contains(change.person) { return "removes its own author in more than a leave" }
        if isLarge { return largeGroupProblem(with: change, everMembers: everMembers) }
        if let already = change.add.first(where: contains) { return "adds \(already.shortHex), already a member" }
        if let absent = change.remove.first(where: { !contains($0) }) {
            return "removes \(absent.shortHex), not a member"
        }
        if !change.remove.isEmpty, change.person != admin {
            return "removes members, which only the admin (\(admin?.shortHex ?? "nobody")) may do"
        }
        let after = Set(members).subtracting(change.remove).union(change.add)
        guard let recipients = change.recipients, Set(recipients) == after else {
            return "seals its key to other keys than the members after the change"
        }
        if everMembers.union(change.add).count > Limits.maxParticipants {
            return "would make more than \(Limits.maxParticipants) keys members of the conversation over its life"
        }
        return nil
    }

    /// §19.4: the creator alone changes a large group, within its bounds; whom the new key
    /// went to is the wraps' count, checked by the store.
    private func largeGroupProblem(with change: MembershipEvent, everMembers: Set<NodeID>) -> String? {
        guard change.person == admin else {
            return "changes the members of a large group, which only its creator (\(creator.shortHex)) may do"
        }
        if let already = change.add.first(where: contains) { return "adds \(already.shortHex), already a member" }
        if let absent = change.remove.first(where: { !contains($0) }) {
            return "removes \(absent.shortHex), not a member"
        }
        if members(after: change).count > Limits.maxLargeGroupMembers {
            return "would make a large group of more than \(Limits.maxLargeGroupMembers) members"
        }
        if everMembers.union(change.add).count > Limits.maxRoomAuthors {
            return "would make more than \(Limits.maxRoomAuthors) keys members of the group over its life"
        }
        return nil
    }
}
