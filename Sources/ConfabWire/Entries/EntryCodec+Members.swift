import ConfabCrypto
import ConfabModel
import Foundation

/// The members body (Protocol.md §4.8.1): everything about it that can be checked without
/// the conversation's other entries is checked here, so a malformed change ends the
/// session like any malformed entry.
extension EntryCodec {
    /// Sealed names: nonce and tag around up to 64 names of up to 64 bytes with their keys.
    public static let maxSealedNamesBytes = 8 * 1024
    /// Sealed history: a sealed box around up to 32 epoch keys.
    public static let maxSealedHistoryBytes = 4 * 1024
    public static let maxSharedEpochs = 32

    static func encodeMembers(_ members: MembersBody) -> Confab_V1_MembersBody {
        var body = Confab_V1_MembersBody()
        body.add = members.add.map { Data($0.bytes) }
        body.remove = members.remove.map { Data($0.bytes) }
        body.keys = encodeParticipants(members.keys)
        body.keyCommitment = Data(members.keyCommitment)
        body.sealedNames = Data(members.sealedNames)
        body.history = members.history.map { shared in
            var history = Confab_V1_SharedHistory()
            history.key = Data(shared.member.bytes)
            history.sealed = Data(shared.sealed)
            return history
        }
        if let wrapped = members.wrapped { body.wraps = encodeWraps(wrapped) }
        return body
    }

    static func decodeMembers(_ body: Confab_V1_MembersBody, author: NodeID) throws(WireError) -> MembersBody {
        let limit = body.hasWraps ? Limits.maxLargeGroupChange : Limits.maxParticipants
        let add = try decodeKeys(body.add, what: "added key", limit: limit)
        let remove = try decodeKeys(body.remove, what: "removed key", limit: limit)
        guard Set(add).isDisjoint(with: remove) else { throw .malformed("a key both added and removed") }
        let keys = try decodeParticipants(body.keys)
        let sealedNames = try checkSealedNames(body.sealedNames)
        if remove.contains(author) {
            // A leave carries nothing else: the member leaving must not choose the next key.
            guard remove == [author], add.isEmpty, keys.isEmpty, body.keyCommitment.isEmpty, sealedNames.isEmpty,
                body.history.isEmpty, !body.hasWraps
            else { throw .malformed("a leave that also changes or rekeys the membership") }
            return MembersBody(remove: remove)
        }
        // A device leaves for its person (Protocol.md §20.11): one key removed and nothing
        // else. Whether that key is the author's person, and whether the key of any other
        // change went to its author's person, only the lists held say (§7 step 4).
        if remove.count == 1, add.isEmpty, keys.isEmpty, body.keyCommitment.isEmpty, sealedNames.isEmpty,
            body.history.isEmpty, !body.hasWraps
        {
            return MembersBody(remove: remove)
        }
        if body.hasWraps { return try decodeLargeMembers(body, author: author, add: add, remove: remove) }
        let recipients = Set(keys.map(\.id))
        guard !recipients.isEmpty else { throw .malformed("members entry that seals its key to nobody") }
        guard recipients.isSuperset(of: add) else {
            throw .malformed("members entry that does not seal its key to an added key")
        }
        guard recipients.isDisjoint(with: remove) else {
            throw .malformed("members entry that seals its key to a removed key")
        }
        guard body.keyCommitment.count == ConversationGenesis.commitmentLength else {
            throw .malformed("epoch key commitment length \(body.keyCommitment.count)")
        }
        var history: [MembersBody.SharedHistory] = []
        var shared = Set<NodeID>()
        for item in body.history {
            guard let member = NodeID(bytes: item.key), add.contains(member), shared.insert(member).inserted else {
                throw .malformed("shared history for a key that is not added, or twice")
            }
            guard item.sealed.count <= maxSealedHistoryBytes else {
                throw .tooLarge("sealed history", limit: maxSealedHistoryBytes, actual: item.sealed.count)
            }
            guard item.sealed.count >= SealedBox.overhead else { throw .malformed("sealed history") }
            history.append(.init(member: member, sealed: [UInt8](item.sealed)))
        }
        return MembersBody(
            add: add, remove: remove, keys: keys, keyCommitment: [UInt8](body.keyCommitment), sealedNames: sealedNames,
            history: history)
    }

    /// A large group's epoch entry (Protocol.md §19.3): wraps instead of sealed keys, no
    /// shared history; an add's wraps are one per added key, a fresh key's are counted
    /// against the members when the entry is stored.
    private static func decodeLargeMembers(
        _ body: Confab_V1_MembersBody, author: NodeID, add: [NodeID], remove: [NodeID]
    ) throws(WireError) -> MembersBody {
        guard body.keys.isEmpty, body.history.isEmpty else {
            throw .malformed("members entry with both wrapped and sealed keys, or shared history")
        }
        let wrapped = try decodeWraps(body.wraps, count: remove.isEmpty && !add.isEmpty ? add.count : nil)
        guard body.keyCommitment.count == ConversationGenesis.commitmentLength else {
            throw .malformed("epoch key commitment length \(body.keyCommitment.count)")
        }
        return MembersBody(
            add: add, remove: remove, keyCommitment: [UInt8](body.keyCommitment),
            sealedNames: try checkSealedNames(body.sealedNames), wrapped: wrapped)
    }

    static func encodeWraps(_ wrapped: WrappedKeys) -> Confab_V1_KeyWraps {
        var wraps = Confab_V1_KeyWraps()
        wraps.ephemeral = Data(wrapped.ephemeral)
        wraps.wraps = Data(wrapped.wraps)
        return wraps
    }

    /// Wraps of 32 bytes each, for 1 to `Limits.maxLargeGroupMembers` recipients; exactly
    /// `count` of them when the body alone says how many (a create's participants, an add's
    /// keys).
    static func decodeWraps(_ body: Confab_V1_KeyWraps, count: Int?) throws(WireError) -> WrappedKeys {
        guard body.ephemeral.count == 32 else { throw .malformed("ephemeral key length \(body.ephemeral.count)") }
        let limit = Limits.maxLargeGroupMembers * WrappedKeys.wrapLength
        guard body.wraps.count <= limit else { throw .tooLarge("key wraps", limit: limit, actual: body.wraps.count) }
        guard !body.wraps.isEmpty, body.wraps.count % WrappedKeys.wrapLength == 0 else {
            throw .malformed("key wraps of \(body.wraps.count) bytes")
        }
        let wrapped = WrappedKeys(ephemeral: [UInt8](body.ephemeral), wraps: [UInt8](body.wraps))
        if let count, wrapped.count != count {
            throw .malformed("\(wrapped.count) key wraps for \(count) recipients")
        }
        return wrapped
    }

    static func encodeParticipants(_ participants: [CreateBody.Participant]) -> [Confab_V1_Participant] {
        participants.map { p in
            var participant = Confab_V1_Participant()
            participant.key = Data(p.id.bytes)
            participant.sealedKey = Data(p.sealedKey)
            return participant
        }
    }

    /// Keys each sealed to once: a create's participants, a members entry's new epoch.
    /// `wrapped`: a large group's create, whose participants carry no sealed key (§19.2).
    static func decodeParticipants(
        _ items: [Confab_V1_Participant], wrapped: Bool = false
    ) throws(WireError) -> [CreateBody.Participant] {
        let limit = wrapped ? Limits.maxLargeGroupChange : Limits.maxParticipants
        guard items.count <= limit else { throw .tooLarge("participant list", limit: limit, actual: items.count) }
        var seen = Set<NodeID>()
        var participants: [CreateBody.Participant] = []
        for participant in items {
            guard let id = NodeID(bytes: participant.key) else { throw .malformed("participant key") }
            guard seen.insert(id).inserted else { throw .malformed("duplicate participant") }
            guard participant.sealedKey.count == (wrapped ? 0 : ConversationCipher.sealedKeyLength) else {
                throw .malformed("sealed conversation key length \(participant.sealedKey.count)")
            }
            participants.append(.init(id: id, sealedKey: [UInt8](participant.sealedKey)))
        }
        return participants
    }

    private static func decodeKeys(_ items: [Data], what: String, limit: Int) throws(WireError) -> [NodeID] {
        guard items.count <= limit else { throw .tooLarge("\(what) list", limit: limit, actual: items.count) }
        var keys: [NodeID] = []
        var seen = Set<NodeID>()
        for item in items {
            guard let key = NodeID(bytes: item) else { throw .malformed(what) }
            guard seen.insert(key).inserted else { throw .malformed("\(what) named twice") }
            keys.append(key)
        }
        return keys
    }

    static func checkSealedNames(_ sealed: Data) throws(WireError) -> [UInt8] {
        guard sealed.count <= maxSealedNamesBytes else {
            throw .tooLarge("sealed names", limit: maxSealedNamesBytes, actual: sealed.count)
        }
        guard sealed.isEmpty || sealed.count >= ConversationCipher.overhead else { throw .malformed("sealed names") }
        return [UInt8](sealed)
    }
}
