import ConfabModel

extension ConfabStore {
    /// What an entry must meet in its author's view of the membership (Protocol.md §4.8.3),
    /// beyond being written by a member of it: a change that view allows, and a sealed text
    /// written under an epoch in force. Relays check the same: every input is plaintext.
    /// `person`: whom the author counts as (Protocol.md §20.11), who acts in a change.
    static func checkMembership(_ entry: Entry, person: NodeID, view: Membership, log: MembershipLog) throws {
        if log.isOpen {
            // A room has no members to change and writes no receipts (Protocol.md §18.2).
            switch entry.body {
            case .members, .receipt:
                throw AppendRejection.badMembership("a room takes no \(entry.kind) entries")
            default:
                return
            }
        }
        if log.isLarge {
            try checkLargeGroupEntry(entry, person: person, view: view)
        } else if case .members(let body) = entry.body, body.wrapped != nil {
            throw AppendRejection.badMembership("wraps keys as only a large group does")
        }
        switch entry.body {
        case .members(let body):
            if let problem = view.problem(
                with: MembershipEvent(entry: entry, members: body, view: view, person: person),
                everMembers: log.everMembers)
            {
                throw AppendRejection.badMembership(problem)
            }
        case .message, .edit, .react, .file:
            guard view.epochInForce != nil else {
                throw AppendRejection.badMembership(
                    "sealed while no key was sealed to exactly the members its author knew of (a rekey was due)")
            }
        default:
            break
        }
    }

    /// A large group takes no receipts, and keys go in its members entries as wraps, a fresh
    /// one's to exactly the members after the change (Protocol.md §19.3, §19.5).
    private static func checkLargeGroupEntry(_ entry: Entry, person: NodeID, view: Membership) throws {
        switch entry.body {
        case .receipt:
            throw AppendRejection.badMembership("a large group takes no receipts")
        case .members(let body) where body.startsEpoch:
            guard let wrapped = body.wrapped else {
                throw AppendRejection.badMembership("seals keys to members of a large group instead of wrapping them")
            }
            let recipients = view.members(after: MembershipEvent(entry: entry, members: body, person: person))
            if !body.derivesKey, wrapped.count != recipients.count {
                throw AppendRejection.badMembership(
                    "wraps its key \(wrapped.count) times for \(recipients.count) members after the change")
            }
        default:
            return
        }
    }
}
