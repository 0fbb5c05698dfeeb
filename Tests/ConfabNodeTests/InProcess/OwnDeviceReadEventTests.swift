import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabStore
import ConfabSync
import ConfabWire
import Foundation
import Testing

@testable import ConfabNode

/// A read on another of my person's devices moves my read marks (Protocol.md §20.14), which
/// no message event shows: the node tells its front ends to read the conversation again, so
/// the badge clears while the chat is open. Another person's receipt changes no badge here.
@Suite struct OwnDeviceReadEventTests {
    let desktopKey = try! SigningKeyPair(seed: [UInt8](repeating: 0x51, count: 32))
    let laptopKey = try! SigningKeyPair(seed: [UInt8](repeating: 0x52, count: 32))
    let bobKey = try! SigningKeyPair(seed: [UInt8](repeating: 0x53, count: 32))

    /// What `target` lacks of `conversation`, in display order, appended.
    func sync(_ conversation: ConversationID, from source: ConfabStore, to target: ConfabStore) throws {
        let theirs = try target.clock(of: conversation)
        var batch: [[UInt8]] = []
        for (author, seq) in try source.clock(of: conversation).sortedEntries where seq > theirs[author] {
            batch += try source.entries(in: conversation, author: author, after: theirs[author])
        }
        let ordered = try batch.map { ($0, try EntryCodec.decodeUnverified($0).orderKey) }.sorted { $0.1 < $1.1 }
        for result in try target.append(batch: ordered.map(\.0), now: Date()) {
            if case .failure(let rejection) = result { Issue.record("refused: \(rejection)") }
        }
    }

    @Test func aReceiptOfMyOtherDeviceAsksFrontEndsToReadTheConversationAgain() async throws {
        let desktop = try ConfabStore.inMemory(identity: desktopKey)
        let bob = try ConfabStore.inMemory(identity: bobKey)
        let (id, _) = try desktop.createConversation(with: [bob.me], firstMessage: "hi")
        try sync(id, from: desktop, to: bob)
        _ = try desktop.addMyDevice(laptopKey.id, name: "laptop")
        let laptop = try ConfabStore.inMemory(identity: laptopKey)
        try laptop.takeLink(
            person: desktop.me, list: try desktop.deviceList(of: desktop.me).entries.map(DeviceEntryCodec.encode),
            displayName: "Alice", keys: try desktop.epochKeys())
        _ = try bob.sendMessage("one", to: id)
        for store in [desktop, laptop] { try sync(id, from: bob, to: store) }
        let laptopsReceipt = try #require(try laptop.markRead(id))
        let bobsReceipt = try #require(try bob.markRead(id))

        let hub = EventHub()
        let events = hub.subscribe()
        var output = SyncOutput()
        output.appended = [bobsReceipt, laptopsReceipt]
        hub.publish(output, store: desktop)
        hub.finish()
        var changed: [ConversationID?] = []
        for await event in events {
            if case .changed(let conversation) = event { changed.append(conversation) }
        }
        #expect(changed == [id])

        // Bob's receipt alone asks for nothing.
        let quiet = EventHub()
        let none = quiet.subscribe()
        var bobs = SyncOutput()
        bobs.appended = [bobsReceipt]
        quiet.publish(bobs, store: desktop)
        quiet.finish()
        var count = 0
        for await event in none { if case .changed = event { count += 1 } }
        #expect(count == 0)
    }
}

extension SigningKeyPair {
    fileprivate var id: NodeID { NodeID(publicKey) }
}
