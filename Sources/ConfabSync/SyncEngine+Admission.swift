import ConfabModel
import ConfabStore
import ConfabWire
import Foundation
import Logging

/// Admission of what peers offer (a relay's policy, a person's quota) and fork proofs
/// passed on.
extension SyncEngine {
    /// Passes a fork proof to every connected peer that shares its conversation, once.
    func spread(_ proof: ForkProof, into output: inout SyncOutput) throws {
        output.forkProofs.append(proof)
        guard spreadProofs.insert(proof.conversation.bytes + proof.author.bytes).inserted else { return }
        for peer in peers.keys where peers[peer]?.helloReceived == true {
            if try shouldShare(proof.conversation, with: peer) {
                output.push([.forkProof(first: proof.first, second: proof.second)], to: peer)
            }
        }
    }

    /// The indices of the entries of a batch the admission policy takes (each sent by the
    /// peer at the same index of `sources`), and for each what it counted; the
    /// conversations of the others are acknowledged like the rest, so the sender learns
    /// they were not stored.
    func admitted(
        _ batch: [[UInt8]], from sources: [NodeID], decoded: DecodedBatch? = nil, output: inout SyncOutput,
        touched: inout Set<ConversationID>
    ) throws -> (kept: [Int], counted: [EntryPeek?]) {
        guard let admission else { return (Array(batch.indices), Array(repeating: nil, count: batch.count)) }
        let peeks = decoded.flatMap { $0.raw == batch ? $0 : nil }
        var kept: [Int] = []
        var counted: [EntryPeek?] = []
        var participants: [ConversationID: [NodeID]] = [:]
        // Where each author's entries were first refused, and why.
        var cuts: [ChainKey: (index: Int, reason: EntryRefusal)] = [:]
        for (index, bytes) in batch.enumerated() {
            // Undecodable entries go on to validation, which rejects them as it always does.
            guard let peek = peeks?.peek(index) ?? EntryCodec.peek(bytes) else {
                kept.append(index)
                counted.append(nil)
                continue
            }
            // A held conversation's participants are the ones stored; a create entry's own
            // list counts only for a conversation not held (a bogus create in the same
            // batch cannot open a held conversation to other keys).
            if participants[peek.conversation] == nil {
                participants[peek.conversation] = try store.participants(of: peek.conversation)
            }
            if let named = peek.participants, participants[peek.conversation]?.isEmpty ?? true {
                participants[peek.conversation] = named
            }
            let members = participants[peek.conversation] ?? []
            if let reason = admission.refusal(
                of: peek, size: bytes.count, participants: members, from: sources[index])
            {
                output.refused[reason, default: 0] += 1
                touched.insert(peek.conversation)
                let chain = ChainKey(conversation: peek.conversation, author: peek.author)
                if cuts[chain] == nil { cuts[chain] = (index, reason) }
            } else {
                kept.append(index)
                counted.append(peek)
            }
        }
        return endingOnSignedEntries(batch, kept: kept, counted: counted, cuts: cuts, output: &output)
    }

    /// What a refusal cut short is taken only up to a signed entry (Protocol.md §4.3): an
    /// author's entries kept below a refused one, past its last entry that carries a
    /// signature, are refused with it. Stored, they would end this node's copy of that log
    /// on an entry it could never send on as the last of a message (§12 step 3); refused,
    /// their sender keeps them queued and offers them again.
    func endingOnSignedEntries(
        _ batch: [[UInt8]], kept: [Int], counted: [EntryPeek?], cuts: [ChainKey: (index: Int, reason: EntryRefusal)],
        output: inout SyncOutput
    ) -> (kept: [Int], counted: [EntryPeek?]) {
        guard !cuts.isEmpty else { return (kept, counted) }
        var dropped = Set<Int>()
        var open = Set(cuts.keys)
        // From the end: the kept entries of a cut chain that came before its refusal, down to
        // the first one found signed. (Those after it are not stored anyway: a gap.)
        for position in kept.indices.reversed() {
            guard let peek = counted[position] else { continue }
            let chain = ChainKey(conversation: peek.conversation, author: peek.author)
            guard open.contains(chain), let (cut, reason) = cuts[chain], kept[position] < cut else { continue }
            if EntryCodec.peekSignedHash(batch[kept[position]]) != nil {
                open.remove(chain)
                continue
            }
            dropped.insert(position)
            output.refused[reason, default: 0] += 1
            admission?.notStored(peek, size: batch[kept[position]].count)
        }
        let remaining = kept.indices.filter { !dropped.contains($0) }
        return (remaining.map { kept[$0] }, remaining.map { counted[$0] })
    }
}
