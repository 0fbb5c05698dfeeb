import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabStore
import ConfabWire
import Foundation
import Glibc
import Testing

@testable import ConfabNode

/// The one messaging API, in this process and attached through the control socket, on
/// real nodes running in the test process.
@Suite(.serialized) struct MessengerTests {
    @Test func aMessageSentThroughTheSocketReachesThePeerAndComesBackDelivered() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let (alice, bob) = try await nodes.pair()
        let bobEvents = bob.events()
        let attached = try await AttachedMessenger(local: alice.local)
        let aliceEvents = try await attached.events(for: nil)
        let sent = try await attached.send("hello bob", to: .newConversation(with: bob.me))
        #expect(sent.created && sent.status == .sending)
        _ = try await firstEvent(in: bobEvents, "bob stores the message") {
            if case .message(let message) = $0 { return message.text == "hello bob" }
            return false
        }
        _ = try await firstEvent(in: aliceEvents, "alice hears it was delivered") {
            if case .status(sent.conversation, sent.seq, let status) = $0 { return status >= .delivered }
            return false
        }
        // What it cost bob: two entries (the thread's create entry and the message), once each.
        let traffic = try await bob.status().traffic
        #expect(traffic.entriesStored == 2 && traffic.entriesReceived == 2 && traffic.duplicatesReceived == 0)
        #expect(traffic.bytesPerEntryStored > 100)
        // Every write went through the store's one write path, counted over the control socket
        // as `status --json` shows it: alice wrote the create entry and the message, at least.
        let commits = try await attached.status().commits
        #expect(commits.transactions >= 1 && commits.writes >= 2 && commits.writes >= commits.transactions)
        #expect(commits.largestBatch >= 1)
        // Bob committed what he received without waiting for fsync; his node syncs it within
        // a second (his delivered receipt, a write of his own, may already have).
        let deadline = ContinuousClock.now + .seconds(10)
        while try await bob.status().commits.pendingSync, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let bobCommits = try await bob.status().commits
        #expect(!bobCommits.pendingSync && bobCommits.synced >= 1)
        // The reply goes the other way through bob's own (in-process) messenger.
        let reply = try await bob.messenger.send("hi alice", to: .conversation(sent.conversation))
        #expect(!reply.created)
        _ = try await firstEvent(in: aliceEvents, "alice gets the reply") {
            if case .message(let message) = $0 { return message.text == "hi alice" }
            return false
        }
        await attached.close()
        await bob.stop()
        await alice.stop()
    }

    @Test func editsAndDeletionsThroughTheSocketReachThePeerAsEvents() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let (alice, bob) = try await nodes.pair()
        let bobEvents = bob.events()
        let attached = try await AttachedMessenger(local: alice.local)
        let aliceEvents = try await attached.events(for: nil)
        let sent = try await attached.send("typo hree", to: .newConversation(with: bob.me))
        _ = try await firstEvent(in: bobEvents, "bob stores the message") {
            if case .message(let message) = $0 { return message.text == "typo hree" }
            return false
        }
        let edit = try await attached.edit(sent.seq, in: sent.conversation, text: "typo here")
        #expect(edit.target == sent.seq && edit.seq == sent.seq + 1 && edit.status == .sending)
        for (events, who) in [(bobEvents, "bob"), (aliceEvents, "alice")] {
            _ = try await firstEvent(in: events, "\(who) hears of the edit") {
                if case .edited(let message) = $0 {
                    return message.seq == sent.seq && message.text == "typo here" && message.editedAt != nil
                        && message.edits.map(\.text) == ["typo hree"]
                }
                return false
            }
        }
        // A seq names one of my own entries (the others' messages cannot be named at all);
        // through the socket the node says why it will not act on one that is no message.
        _ = try await bob.messenger.send("mine", to: .conversation(sent.conversation))
        do {
            _ = try await attached.unsend(1, in: sent.conversation)
            Issue.record("alice deleted her create entry")
        } catch {
            #expect("\(error)".contains("no message of yours"))
        }
        _ = try await attached.unsend(sent.seq, in: sent.conversation)
        _ = try await firstEvent(in: bobEvents, "bob hears of the deletion") {
            if case .deleted(let message) = $0 { return message.seq == sent.seq && message.text == nil }
            return false
        }
        #expect(try bob.local.store.history(sent.conversation).map(\.isDeleted) == [true, false])
        await attached.close()
        await bob.stop()
        await alice.stop()
    }

    @Test func repliesAndReactionsThroughTheSocketReachThePeerAsEvents() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let (alice, bob) = try await nodes.pair()
        let bobEvents = bob.events()
        let attached = try await AttachedMessenger(local: alice.local)
        let aliceEvents = try await attached.events(for: nil)
        let sent = try await attached.send("pizza?", to: .newConversation(with: bob.me))
        let pizza = MessageRef(author: alice.me, seq: sent.seq)
        _ = try await firstEvent(in: bobEvents, "bob stores the message") {
            if case .message(let message) = $0 { return message.text == "pizza?" }
            return false
        }
        // Bob answers through his own messenger; the reply reaches Alice quoting hers.
        _ = try await bob.messenger.send("yes!", to: .conversation(sent.conversation), replyTo: pizza)
        _ = try await firstEvent(in: aliceEvents, "alice gets the reply") {
            if case .message(let message) = $0 { return message.text == "yes!" && message.replyTo?.ref == pizza }
            return false
        }
        // Alice reacts to his reply through the socket; both hear it, then its taking back.
        let answer = try #require(try alice.local.store.history(sent.conversation).last)
        let done = try await attached.react("❤", to: answer.ref, in: sent.conversation, removed: false)
        #expect(done.emoji == "❤️" && !done.removed && done.target == answer.id && done.status == .sending)
        for (events, who) in [(bobEvents, "bob"), (aliceEvents, "alice")] {
            _ = try await firstEvent(in: events, "\(who) hears of the reaction") {
                if case .reaction(let message, let change) = $0 {
                    return message.ref == answer.ref && change.reactor == alice.me && change.emoji == "❤️"
                        && !change.removed && message.reactions.map(\.emoji) == ["❤️"]
                }
                return false
            }
        }
        do {
            _ = try await attached.react("❤️", to: answer.ref, in: sent.conversation, removed: false)
            Issue.record("the same reaction was stored twice")
        } catch {
            #expect("\(error)".contains("already reacted"))
        }
        _ = try await attached.react("❤️", to: answer.ref, in: sent.conversation, removed: true)
        _ = try await firstEvent(in: bobEvents, "bob hears it taken back") {
            if case .reaction(let message, let change) = $0 { return change.removed && message.reactions.isEmpty }
            return false
        }
        await attached.close()
        await bob.stop()
        await alice.stop()
    }

    @Test func aPipelinedBurstIsStoredInOrderAndArrivesWhole() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let (alice, bob) = try await nodes.pair()
        let bobEvents = bob.events()
        let attached = try await AttachedMessenger(local: alice.local)
        let first = try await attached.send("line 0", to: .newConversation(with: bob.me))
        let texts = (1..<2000).map { "line \($0)" }
        let sent = try await attached.send(texts, to: first.conversation)
        #expect(sent.map(\.seq) == Array((first.seq + 1)...(first.seq + 1999)))
        _ = try await firstEvent(in: bobEvents, "bob stores the last line") {
            if case .message(let message) = $0 { return message.text == "line 1999" }
            return false
        }
        #expect(try bob.local.store.history(first.conversation, limit: 5000).compactMap(\.text) == ["line 0"] + texts)
        await attached.close()
        await bob.stop()
        await alice.stop()
    }

    @Test func flagsTrustAndDeletionGoThroughTheNodeAndAreAnnounced() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        try await alice.start()
        let carol = NodeID(SigningKeyPair.generate().publicKey)
        let attached = try await AttachedMessenger(local: alice.local)
        let created = try await attached.create(with: [carol], title: "plans", firstMessage: "first")
        #expect(created.firstMessageSeq != nil)
        let events = try await attached.events(for: created.conversation)
        try await attached.setFlag(.pinned, true, on: created.conversation)
        _ = try await firstEvent(in: events, "the pin is announced") { $0 == .changed(created.conversation) }
        #expect(try alice.local.store.conversation(created.conversation)?.isPinned == true)
        try await attached.setTrust(.blocked, for: carol)
        #expect(try alice.local.store.blockedPeers() == [carol])
        #expect(alice.blockList.contains(carol))
        try await attached.delete(created.conversation)
        #expect(try alice.local.store.conversation(created.conversation)?.participants.isEmpty ?? true)
        await attached.close()
        await alice.stop()
    }

    /// A node killed with SIGKILL leaves its socket file behind with nothing listening: the
    /// next command must work on the store, not wait on or fail at the dead socket.
    @Test func aSocketFileNobodyListensOnIsNoNode() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let options = nodes.options("alice", peers: [])
        let local = try Profile.initialize(options.directory, name: "alice")
        let path = options.directory.controlSocket.path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        close(fd)
        #expect(bound == 0 && ControlServer.mightBeRunning(options.directory))
        let messenger = try await local.messenger()
        #expect(messenger is LocalMessenger && !messenger.reachesNode)
        let sent = try await messenger.send(
            "queued", to: .newConversation(with: NodeID(SigningKeyPair.generate().publicKey)))
        #expect(sent.status == .sending)
    }

    @Test func withoutANodeWritesWaitInTheOutboxAndLeaveWhenOneRuns() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let bob = try nodes.node("bob")
        let address = try await bob.start()
        let bobEvents = bob.events()
        let options = nodes.options("alice", peers: ["\(bob.me.hex)@127.0.0.1:\(address.port!)"])
        let local = try Profile.initialize(options.directory, name: "alice")
        let offline = try await local.messenger()
        #expect(offline is LocalMessenger)
        _ = try await offline.send("written offline", to: .newConversation(with: bob.me))
        #expect(try local.store.outboxCount() > 0)
        await #expect(throws: ClientError.notRunning(options.directory.path)) { try await offline.status() }
        await #expect(throws: ClientError.notRunning(options.directory.path)) { try await offline.resync() }
        // The chat's way: a node started here when none runs.
        let online = try await local.messenger(startingNodeWith: options)
        _ = try await firstEvent(in: bobEvents, "the queued message arrives") {
            if case .message(let message) = $0 { return message.text == "written offline" }
            return false
        }
        #expect(try await online.status().sessions.map(\.peer) == [bob.me])
        // Another process now finds this node on the socket and attaches to it.
        #expect(try await local.messenger() is AttachedMessenger)
        await online.close()
        #expect(!ControlServer.mightBeRunning(options.directory))
        await bob.stop()
    }

    @Test func sendingOnlyToBlockedPeersIsRefusedWithWhatToDo() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        let mallory = NodeID(bytes: [UInt8](repeating: 6, count: 32))!
        try alice.local.store.setTrust(mallory, .blocked)
        do {
            _ = try await alice.messenger.send("hi", to: .newConversation(with: mallory))
            Issue.record("a message to a blocked peer was stored")
        } catch {
            #expect("\(error)".contains("confab unblock \(mallory.shortHex)"))
        }
    }

    @Test func stoppingANodeEndsItsDialLoopsAndEventStreams() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        // Nobody listens on port 9 of loopback: the loop keeps trying until stopped.
        let key = NodeID(bytes: [UInt8](repeating: 5, count: 32))!
        let alice = try nodes.node("alice", peers: ["\(key.hex)@127.0.0.1:9"])
        try await alice.start()
        let events = alice.events()
        #expect(alice.dialer.activeCount == 1)
        await alice.stop()
        #expect(alice.dialer.activeCount == 0)
        var remaining = 0
        for await _ in events { remaining += 1 }
        #expect(remaining == 0)
        // Subscribing after the stop gets a stream that is already over.
        for await _ in alice.events() { Issue.record("an event after stop") }
    }
}

/// What a node decides on its own: whom it redials after a restart, whom it trusts as a relay.
@Suite(.serialized) struct NodeDecisionTests {
    @Test func aRestartedNodeRedialsThePeersItSharesAConversationWith() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let (alice, bob) = try await nodes.pair()
        let aliceEvents = alice.events()
        _ = try await bob.messenger.send("before the restart", to: .newConversation(with: alice.me))
        _ = try await firstEvent(in: aliceEvents, "alice stores bob's message") {
            if case .message(let message) = $0 { return message.text == "before the restart" }
            return false
        }
        await bob.stop()
        // No static peer this time: only what bob's store remembers about alice.
        let again = try Node(options: nodes.options("bob"))
        try await again.start()
        try await waitUntil(timeout: 20, "bob is back without being told where alice is") {
            again.sessions.session(with: alice.me) != nil
        }
        await again.stop()
        await alice.stop()
    }

    /// A peer met at two addresses (a laptop on Ethernet, then on Wi-Fi) is redialled at
    /// each in turn: here the newest one is dead, and the older one still works.
    @Test func aRestartedNodeTriesEveryAddressItMetAPeerAt() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let (alice, bob) = try await nodes.pair()
        let aliceEvents = alice.events()
        _ = try await bob.messenger.send("before the move", to: .newConversation(with: alice.me))
        _ = try await firstEvent(in: aliceEvents, "alice stores bob's message") {
            if case .message(let message) = $0 { return message.text == "before the move" }
            return false
        }
        await bob.stop()
        // Nothing listens on port 1 of loopback: the last address bob knows for alice is dead.
        let store = try Profile.open(nodes.options("bob").directory).store
        try store.notePeerSeen(alice.me, suggestedName: "alice", address: "127.0.0.1:1", now: Date() + 60)
        #expect(try store.addresses(of: alice.me).first == "127.0.0.1:1")
        #expect(try store.addresses(of: alice.me).count == 2)
        let again = try Node(options: nodes.options("bob"))
        try await again.start()
        // At once: the dial to the live address does not share the dead one's failure and backoff.
        try await waitUntil(timeout: 5, "bob reaches alice at the address that still works") {
            again.sessions.session(with: alice.me) != nil
        }
        await again.stop()
        await alice.stop()
    }

    @Test func onTheDefaultNetworkOnlyChosenKeysAreTrustedAsRelays() throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let store = try Profile.initialize(nodes.options("alice").directory, name: "alice").store
        let (stranger, added, verified, allowed) = (
            NodeID(SigningKeyPair.generate().publicKey), NodeID(SigningKeyPair.generate().publicKey),
            NodeID(SigningKeyPair.generate().publicKey), NodeID(SigningKeyPair.generate().publicKey)
        )
        try store.savePeer(added, name: "relay")
        try store.savePeer(verified, name: "checked")
        try store.setTrust(verified, .verified)
        let defaultNetwork = Node.relayTrust(store: store, networkKey: .default, allow: [allowed])
        #expect(!defaultNetwork(stranger))
        #expect(defaultNetwork(added) && defaultNetwork(verified) && defaultNetwork(allowed))
        let privateNetwork = Node.relayTrust(
            store: store, networkKey: NetworkKey(bytes: [UInt8](repeating: 0x42, count: 32))!, allow: [])
        #expect(privateNetwork(stranger))
    }
}
