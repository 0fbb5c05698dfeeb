import ConfabModel
import Foundation
import GRDB

/// Removing one of my devices, whole (Protocol.md §20.13): the list entry that removes it
/// with its cuts and a new encryption key, then a rekey of every conversation my person is a
/// member of, sealed to the members after it — my person to the new key, which the removed
/// device never gets.
extension ConfabStore {
    /// Removes `device` from my list and rekeys every conversation I am a member of, in one
    /// transaction: a removal is never held here without its rekeys, which nothing would
    /// write later (the members did not change, so no send finds a rekey due). A node that
    /// runs meanwhile sends the list and the rekeys on as external writes.
    public func removeDevice(_ device: NodeID, now: Date = Date()) throws -> DeviceRemovalOutcome {
        guard myPerson == me else {
            throw StoreError.invalidInput("only the machine that holds the person key removes devices")
        }
        return try write { db in
            let entry = try writeDeviceRemoval(device, db: db, now: now)
            var rekeyed: [ConversationID] = []
            var notRekeyed: [ConversationID] = []
            let conversations = try Row.fetchAll(
                db, sql: "SELECT id FROM conversation WHERE room IS NULL ORDER BY id"
            ).map { $0.conversationID("id") }
            for conversation in conversations {
                // A room has no members and no key of its own to change (§18).
                guard let log = try membershipLog(conversation, db: db), log.current.contains(me) else { continue }
                if log.isLarge, log.current.admin != me {
                    notRekeyed.append(conversation)
                    continue
                }
                do {
                    if log.isLarge {
                        _ = try authorLargeGroupEpoch(in: conversation, add: [], remove: [], db: db, now: now)
                    } else {
                        _ = try authorEpoch(
                            in: conversation, members: log.current.members, add: [], remove: [], shareHistory: false,
                            db: db, now: now)
                    }
                } catch let error as StoreError where error.isOwnLogBehind {
                    // Nothing is written: the whole removal waits until this machine can rekey.
                    throw StoreError.invalidInput(
                        "nothing was removed: this machine does not hold all it wrote in conversation "
                            + "\(conversation.shortHex) (was the key restored here?), so it cannot rekey it; run "
                            + "\"confab up\" until its own entries have come back from peers, then remove again")
                }
                // The personal conversation is rekeyed too, but listed nowhere (§20.15).
                if try !isPersonal(conversation, db: db) { rekeyed.append(conversation) }
            }
            return DeviceRemovalOutcome(entry: entry, rekeyed: rekeyed, notRekeyed: notRekeyed)
        }
    }
}
