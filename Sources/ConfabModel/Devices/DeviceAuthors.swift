/// Who an entry's author key counts as, from the device lists held (Protocol.md §20.11):
/// the person whose list added it, within that list's cuts once removed; any other key is a
/// person of its own, as a key with no list always was.
///
/// A list is signed by its person alone, never by the devices it names, so a person could
/// list a key that is not theirs. Two rules keep such a list from taking anyone's entries:
/// a key named a member of the conversation is that member itself there (a person key is
/// never captured where its person writes), and only a person who is a member of the
/// conversation can be a key's person there — of two or more such, none is.
public struct DeviceAuthors: Sendable, Equatable {
    /// One person's list naming a key: listed now (`cuts` nil) or removed with these cuts.
    struct Claim: Sendable, Equatable {
        let person: NodeID
        let cuts: [ConversationID: UInt64]?
    }

    private var claims: [NodeID: [Claim]] = [:]
    private var listed: [NodeID: [NodeID]] = [:]
    private var names: [NodeID: String] = [:]
    private var personNames: [NodeID: String] = [:]

    /// No list held: every key counts as itself.
    public init() {}

    public init(lists: some Sequence<DeviceList>) {
        for list in lists where !list.isEmpty {
            listed[list.person] = list.devices.map(\.key)
            personNames[list.person] = list.personDeviceName
            for device in list.listed {
                claims[device.key, default: []].append(Claim(person: list.person, cuts: nil))
                names[device.key] = device.name
            }
            for entry in list.entries {
                guard case .remove(let device, _) = entry.change, let removal = list.removal(of: device) else {
                    continue
                }
                claims[device, default: []].append(Claim(person: list.person, cuts: removal.cuts))
            }
        }
    }

    /// Whether any held list names a key besides its person's: when none does, every key
    /// counts as itself and nothing needs resolving.
    public var isEmpty: Bool { claims.isEmpty }

    /// The devices of `person` now: the person's own key first, then those its held list
    /// names, in the order they were added; the person alone when no list of it is held.
    public func devices(of person: NodeID) -> [NodeID] { listed[person] ?? [person] }

    /// The name a list that lists `device` now gives it (the last such list's, when two do).
    public func name(of device: NodeID) -> String? { names[device] }

    /// The name `person`'s held list gives the person's own key (its first machine), when a
    /// rename named it.
    public func personDeviceName(of person: NodeID) -> String? { personNames[person] }

    /// The names each held list gives its person's own key, where a rename named it.
    public var personDeviceNames: [NodeID: String] { personNames }

    /// Every key some list names besides its person, sorted.
    public var namedKeys: [NodeID] { claims.keys.sorted() }

    /// Whether some held list names `key` as a device, listed or removed.
    public func names(_ key: NodeID) -> Bool { claims[key] != nil }

    /// The persons whose held list names `key` as a device, listed or removed, sorted.
    public func persons(naming key: NodeID) -> [NodeID] {
        Set((claims[key] ?? []).map(\.person)).sorted()
    }

    /// Whom a session with `key` counts as in a conversation whose ever-members are
    /// `members` (nil in a room): as `person(of:in:seq:members:)`, for the device as it is
    /// now — a removed device is its person's no more, and is offered nothing as them.
    public func currentPerson(of key: NodeID, members: Set<NodeID>?) -> NodeID {
        guard let claims = claims[key] else { return key }
        if let members, members.contains(key) { return key }
        let candidates = claims.filter { members?.contains($0.person) ?? true }
        guard candidates.count == 1, let claim = candidates.first, claim.cuts == nil else { return key }
        return claim.person
    }

    /// The last seq of `device`'s log in `conversation` that counts as its person's, when
    /// one person's list removed it (0 when the removal names no cut there); nil otherwise.
    public func cut(of device: NodeID, in conversation: ConversationID) -> UInt64? {
        guard let claims = claims[device], claims.count == 1, let cuts = claims[0].cuts else { return nil }
        return cuts[conversation] ?? 0
    }

    /// The key the entry at `seq` of `author`'s log in `conversation` counts as: a person
    /// key. `members` is every key ever named a member of the conversation; nil in a room,
    /// which names nobody and where anyone may write.
    ///
    /// The author itself when it is a member key, when no list of a member names it, when
    /// the lists of two members name it, and when its person removed it and the entry lies
    /// past the removal's cut for this conversation (or the cuts do not name it): then it
    /// is nobody's member, and its entry is refused as any non-member's is.
    public func person(
        of author: NodeID, in conversation: ConversationID, seq: UInt64, members: Set<NodeID>?
    ) -> NodeID {
        guard let claims = claims[author] else { return author }
        if let members, members.contains(author) { return author }
        let candidates = claims.filter { members?.contains($0.person) ?? true }
        guard candidates.count == 1, let claim = candidates.first else { return author }
        guard let cuts = claim.cuts else { return claim.person }
        return seq <= cuts[conversation] ?? 0 ? claim.person : author
    }
}
