import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabStore
import ConfabWire
import Foundation
import Testing

@testable import ConfabNode

/// `devices` and `remove_device` (Protocol.md §13, §20.13) against real stores and a real
/// node: what the list says on each machine, who may remove, and that a removal made through
/// the operation reaches peers at once, as the CLI's and the web app's do.
@Suite(.serialized) struct DeviceOperationTests {
    let laptop = NodeID(SigningKeyPair.generate().publicKey)

    /// A machine listed as `person`'s "laptop" and linked to it, from the list and keys.
    func linkedLaptop(to person: Profile, in nodes: InProcessNodes) throws -> Profile {
        let directory = DataDirectory(url: nodes.root.appendingPathComponent("laptop"))
        let laptop = try Profile.initialize(directory, name: "laptop").me
        _ = try person.store.addMyDevice(laptop, name: "laptop")
        try Profile.open(directory).store.takeLink(
            person: person.me, list: try person.store.deviceList(of: person.me).entries.map(DeviceEntryCodec.encode),
            displayName: try person.displayName(), keys: try person.store.epochKeys())
        return try Profile.open(directory)
    }

    @Test func theListNamesEachMachineWhenItWasLinkedAndLastMetAndWhichIsThisOne() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        let store = alice.local.store
        let other = try linkedLaptop(to: alice.local, in: nodes)
        let laptop = other.me
        let linked = Date(
            timeIntervalSince1970: TimeInterval(try store.deviceList(of: alice.me).entries[0].timestamp) / 1000)
        let met = Date(timeIntervalSince1970: 1_700_000_600)
        try store.notePeerSeen(laptop, suggestedName: "laptop", address: "127.0.0.1:9", now: met)

        let listing = try await alice.messenger.perform(Operations.Devices())
        #expect(listing.person == alice.me && listing.canRemove && listing.removed == nil)
        #expect(
            listing.devices == [
                DeviceListing.Device(
                    id: alice.me, name: "alice", fingerprint: alice.me.fingerprint, addedAt: nil, lastSeen: nil,
                    thisDevice: true, personKey: true),
                DeviceListing.Device(
                    id: laptop, name: "laptop", fingerprint: laptop.fingerprint, addedAt: linked, lastSeen: met,
                    thisDevice: false, personKey: false),
            ])

        // On the linked machine: the same list, that machine marked, and no removing there;
        // the person's machine never met from there yet.
        let onLaptop = try await LocalMessenger(local: other).perform(Operations.Devices())
        #expect(onLaptop.person == alice.me && !onLaptop.canRemove && onLaptop.removed == nil)
        #expect(onLaptop.devices.map(\.id) == [alice.me, laptop])
        #expect(onLaptop.devices.map(\.thisDevice) == [false, true])
        #expect(onLaptop.devices.map(\.name) == ["alice", "laptop"])
        #expect(onLaptop.devices.map(\.lastSeen) == [nil, nil])
    }

    @Test func aRunningNodeAnswersTheSameOverItsSocketAndAnAttachedFrontEndFromTheStore() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        try await alice.start()
        defer { Task { await alice.stop() } }
        _ = try alice.local.store.addMyDevice(laptop, name: "laptop")
        let attached = try await AttachedMessenger(local: alice.local)
        defer { Task { await attached.close() } }
        let here = try await alice.messenger.perform(Operations.Devices())
        #expect(try await attached.askNode(Operations.Devices()) == here)
        #expect(try await attached.perform(Operations.Devices()) == here)
        #expect(here.devices.count == 2)
    }

    @Test func onlyThePersonKeyMachineRemovesAndItRefusesWhatIsNotAnotherListedMachine() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        let laptopProfile = try linkedLaptop(to: alice.local, in: nodes)
        let laptop = laptopProfile.me

        await #expect {
            _ = try await LocalMessenger(local: laptopProfile).perform(Operations.RemoveDevice(laptop))
        } throws: { error in
            "\(error)".hasPrefix(
                "only the machine that holds alice's person key (\(alice.me.shortHex), the first device) can remove "
                    + "devices; run \"confab devices remove laptop\" there")
        }
        await #expect {
            _ = try await alice.messenger.perform(Operations.RemoveDevice(alice.me))
        } throws: { error in
            "\(error)".contains("is this machine, which holds the person key: it is never removed")
        }
        let stranger = NodeID(SigningKeyPair.generate().publicKey)
        await #expect {
            _ = try await alice.messenger.perform(Operations.RemoveDevice(stranger))
        } throws: { error in
            "\(error)".contains("no device \(stranger.shortHex) is in your devices")
        }
        #expect(try alice.local.store.deviceList(of: alice.me).listed.map(\.key) == [laptop])

        let removed = try await alice.messenger.perform(Operations.RemoveDevice(laptop))
        #expect(removed.id == laptop && removed.name == "laptop")
        #expect(try alice.local.store.deviceList(of: alice.me).listed.isEmpty)
        await #expect {
            _ = try await alice.messenger.perform(Operations.RemoveDevice(laptop))
        } throws: { error in
            "\(error)".contains("laptop was removed already")
        }

        // The laptop, once it holds the new list, says so in its listing.
        _ = try laptopProfile.store.offerDeviceList(
            try alice.local.store.deviceList(of: alice.me).entries.map(DeviceEntryCodec.encode), of: alice.me)
        let listing = try await LocalMessenger(local: laptopProfile).perform(Operations.Devices())
        #expect(listing.removed?.message.hasPrefix("This device was removed from alice's devices") == true)
        #expect(listing.devices.map(\.id) == [alice.me])
    }

    /// The removal is written in the node's own process, which moves no data version the
    /// node watches: the operation itself hands the list and the rekeys to the node.
    @Test func aRemovalThroughTheOperationReachesAPeerAtOnceWithItsRekey() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let (alice, bob) = try await nodes.pair()
        let bobEvents = bob.events()
        let sent = try await alice.messenger.send("hello", to: .newConversation(with: bob.me))
        _ = try await firstEvent(in: bobEvents, "bob gets the message") {
            if case .message(let message) = $0 { return message.text == "hello" }
            return false
        }
        let alicesOnBob = try bob.local.store.clock(of: sent.conversation)[alice.me]
        // Listed through the store alone: Bob hears of the laptop only with the removal.
        _ = try alice.local.store.addMyDevice(laptop, name: "laptop")

        let removed = try await alice.messenger.perform(Operations.RemoveDevice(laptop))
        #expect(removed.rekeyed == [sent.conversation] && removed.notRekeyed.isEmpty)
        #expect(
            try await poll("Bob holds Alice's list with the laptop removed") {
                try bob.local.store.deviceList(of: alice.me).removal(of: laptop) != nil
            })
        #expect(
            try await poll("Bob holds Alice's rekey") {
                try bob.local.store.clock(of: sent.conversation)[alice.me] > alicesOnBob
            })
        await bob.stop()
        await alice.stop()
    }
}

/// A machine just linked has met no one: `--peer HOST:PORT` without a key tries its person's
/// other machines, or it would dial nobody until it met them by beacons (where the address
/// was typed because beacons do not reach).
@Suite struct LinkedMachineDialTests {
    @Test func aBarePeerAddressTriesMyPersonsOtherMachines() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        let laptop = try DeviceOperationTests().linkedLaptop(to: alice.local, in: nodes)
        let target = try StaticPeer("127.0.0.1:7461")
        #expect(try Node.candidateKeys(for: target, store: laptop.store) == [alice.me])
        // And the person's machine tries its laptop, its only machine besides itself.
        #expect(try Node.candidateKeys(for: target, store: alice.local.store) == [laptop.me])
    }

    /// My machines meet me as peers (their presence shows, marked `ownDevice`), but the
    /// pickers of people to talk to leave them out.
    @Test func myOwnMachinesAreMarkedAndNotKnownPeersToPick() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        let laptop = try DeviceOperationTests().linkedLaptop(to: alice.local, in: nodes)
        let bob = NodeID(SigningKeyPair.generate().publicKey)
        try alice.local.store.notePeerSeen(laptop.me, suggestedName: "alice", address: "127.0.0.1:9")
        try alice.local.store.savePeer(bob, name: "Bob")
        let known = try await alice.messenger.perform(Operations.KnownPeers())
        #expect(known.map(\.id) == [bob])
        let presence = try await alice.messenger.perform(Operations.Peers())
        #expect(presence.first { $0.id == laptop.me }?.ownDevice == true)
        #expect(presence.first { $0.id == bob }?.ownDevice == nil)
    }
}
