import ConfabModel

extension ConfabStore {
    /// What an entry must meet in its author's view of the membership (Protocol.md §4.8.3),
    /// beyond being written by a member of it: a change that view allows, and a sealed text
    /// written under an epoch in force. Relays check the same: every input is plaintext.
    static func checkMembership(_ entry: Entry, view: Membership, log: MembershipLog) throws {
        if log.isOpen {
            // A room has no members to change and writes no receipts (Protocol.md §18.2).
            switch entry.body {
            case .members, .receipt:
                throw AppendRejection.badMembership("a room takes no \(entry.kind) entries")
            default:
                return
            }
        }
        switch entry.body {
        case .members(let body):
            if let problem = view.problem(
                with: MembershipEvent(entry: entry, members: body), everMembers: log.everMembers)
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
}
