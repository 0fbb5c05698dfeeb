import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNode
import ConfabStore
import ConfabTestSupport
import ConfabWire
import Foundation
import Testing

@testable import ConfabTUI

/// `/devices` against a real store, through the performer both chats share: the plain
/// chat's lines and requests, the device `/devices remove NAME` chooses as
/// `confab devices remove` does, and the refusal on a linked machine before any question.
@Suite struct PlainChatDeviceTests {
    let root: URL
    let alice: Profile
    let chat: PlainChat
    let laptop = NodeID(SigningKeyPair.generate().publicKey)

    init() throws {
        root = try ConfabBinary.temporaryDirectory("confab-plain-devices")
        let directory = DataDirectory(url: root.appendingPathComponent("alice"))
        alice = try Profile.initialize(directory, name: "alice")
        chat = PlainChat(local: alice, options: NodeOptions(directory: directory), write: { _ in })
    }

    @Test func requestsAskForYesBeforeRemoving() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try await chat.request(for: "/devices") == .perform([.devices(.list)]))
        #expect(
            try await chat.request(for: "/devices remove laptop --yes")
                == .perform([.devices(.remove("laptop", confirmed: true))]))
        #expect(
            try await chat.request(for: "/devices remove laptop")
                == .say(
                    "removing laptop cannot be undone: it will read nothing written from now on, and what it writes "
                        + "will be refused — type /devices remove laptop --yes to remove it"))
        for line in ["/devices remove", "/devices of mine"] {
            #expect(
                try await chat.request(for: line)
                    == .say("/devices lists your machines; /devices remove NAME --yes removes one"), "\(line)")
        }
    }

    /// The one device answer an effect gave, if that is all it gave.
    func answer(_ updates: [ChatUpdate]) -> DeviceAnswer? {
        guard updates.count == 1, case .devices(let answer) = updates[0] else { return nil }
        return answer
    }

    @Test func theListAndARemovalThroughThePerformerOnARealStore() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try alice.store.addMyDevice(laptop, name: "laptop")
        let performer = chat.performer

        let listed = try await performer.perform(.devices(.list))
        guard case .listing(let listing, let online)? = answer(listed) else {
            Issue.record("not a listing: \(listed)")
            return
        }
        #expect(listing.devices.map(\.id) == [alice.me, laptop])
        #expect(online.isEmpty, "no node runs here")
        #expect(
            await chat.lines(for: listed[0], answering: .devices(.list), echo: PlainEcho()) == [
                "alice  \(DeviceText.shortFingerprint(alice.me))  this device",
                "laptop  \(DeviceText.shortFingerprint(laptop))  not met yet",
                "/devices remove NAME --yes removes one",
            ])

        // Chosen as the CLI chooses (a name in any case, a fingerprint prefix), nothing removed yet.
        for query in ["LAPTOP", DeviceText.shortFingerprint(laptop)] {
            let asked = try await performer.perform(.devices(.remove(query, confirmed: false)))
            #expect(answer(asked) == .toRemove(listing.devices[1]), "\(query)")
        }
        #expect(try alice.store.deviceList(of: alice.me).listed.map(\.key) == [laptop])
        await #expect {
            _ = try await performer.perform(.devices(.remove("phone", confirmed: false)))
        } throws: { error in
            "\(error)" == "no device phone; devices: laptop (\(laptop.shortHex))"
        }
        await #expect {
            _ = try await performer.perform(.devices(.remove("alice", confirmed: true)))
        } throws: { error in
            "\(error)".hasSuffix("is this machine, which holds the person key: it is never removed")
        }

        let removed = try await performer.perform(.devices(.remove(laptop.hex, confirmed: true)))
        #expect(answer(removed) == .removed(DeviceRemoved(id: laptop, name: "laptop", rekeyed: [], notRekeyed: [])))
        #expect(try alice.store.deviceList(of: alice.me).listed.isEmpty)
        #expect(
            await chat.lines(
                for: removed[0], answering: .devices(.remove(laptop.hex, confirmed: true)), echo: PlainEcho())
                == [
                    "Removed laptop; 0 conversations rekeyed; your peers learn of it when this machine next meets them"
                ])
        await #expect {
            _ = try await performer.perform(.devices(.remove("laptop", confirmed: false)))
        } throws: { error in
            "\(error)".hasPrefix("laptop was removed already")
        }
    }

    /// A linked machine holds no person key: it is told so, with the machine that does,
    /// before any question is asked.
    @Test func aLinkedMachineIsRefusedBeforeAnyQuestion() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = DataDirectory(url: root.appendingPathComponent("laptop"))
        let linked = try Profile.initialize(directory, name: "laptop")
        _ = try alice.store.addMyDevice(linked.me, name: "laptop")
        try Profile.open(directory).store.takeLink(
            person: alice.me, list: try alice.store.deviceList(of: alice.me).entries.map(DeviceEntryCodec.encode),
            displayName: try alice.displayName(), keys: try alice.store.epochKeys())
        let onLaptop = PlainChat(
            local: try Profile.open(directory), options: NodeOptions(directory: directory), write: { _ in })
        await #expect {
            _ = try await onLaptop.performer.perform(.devices(.remove("laptop", confirmed: false)))
        } throws: { error in
            "\(error)"
                == "only the machine that holds alice's person key (\(alice.me.shortHex), the first device) can remove "
                + "devices; run \"confab devices remove laptop\" there"
        }
        #expect(try alice.store.deviceList(of: alice.me).listed.map(\.key) == [linked.me])
    }
}
