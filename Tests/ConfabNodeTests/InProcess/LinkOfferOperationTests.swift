import ConfabClient
import ConfabModel
import ConfabWire
import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import Testing

@testable import ConfabNode

/// `link_offer`, `link_confirm` and `link_cancel` (Protocol.md §13, §20.10) on a real node:
/// the offer a front end opens, a real new machine joining it over loopback, and the `link`
/// events a web page follows.
@Suite(.serialized) struct LinkOfferOperationTests {
    /// A new machine joining `offer` with its code, answering `answer` to the words it shows.
    func join(
        _ offer: LinkOfferStarted, into directory: DataDirectory, name: String = "laptop",
        answer: Bool = true, prompts: NIOLockedValueBox<[LinkPrompt]>
    ) async throws(LinkFailure) -> LinkJoin.Linked {
        guard let code = LinkCode(text: offer.code),
            let port = offer.peer.split(separator: ":").last.flatMap({ Int($0) })
        else { throw LinkFailure(.local, "the offer's answer does not parse: \(offer)") }
        let join = try LinkJoin(code: code, deviceName: name)
        return try await join.run(
            host: "127.0.0.1", port: port, events: { _ in },
            confirm: { prompt in
                prompts.withLockedValue { $0.append(prompt) }
                return answer
            },
            write: { grant, keys in try Profile.createLinked(directory, identity: join.device, grant: grant, keys: keys)
            })
    }

    func link(_ event: NodeEvent) -> LinkProgress? {
        guard case .link(let progress) = event else { return nil }
        return progress
    }

    @Test func theOfferGivesTheCodeAndAYesOnBothSidesLinksTheNewMachine() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        try await alice.start()
        defer { Task { await alice.stop() } }
        let events = alice.events()

        let offer = try await alice.messenger.perform(Operations.OfferLink())
        #expect(LinkCode(text: offer.code)?.description == offer.code)
        #expect(offer.peer.hasPrefix("127.0.0.1:"))
        #expect(offer.command == "confab init --link \(offer.code) --peer \(offer.peer)")
        #expect(offer.qr == (try QRCode(offer.command)).modules.map { String($0.map { $0 ? "1" : "0" }) })
        #expect(offer.qr.allSatisfy { $0.count == offer.qr.count })
        #expect(abs(offer.expiresAt.timeIntervalSinceNow - 300) < 5)

        // One offer at a time: a second code in the air is refused while this one runs.
        await #expect {
            _ = try await alice.messenger.perform(Operations.OfferLink())
        } throws: { error in
            "\(error)".contains("a link offer is already open here")
        }
        // No words to answer before a new machine connects.
        await #expect {
            _ = try await alice.messenger.perform(Operations.ConfirmLink(id: offer.id, yes: true))
        } throws: { error in
            "\(error)".contains("no new machine has connected")
        }

        let directory = DataDirectory(url: nodes.root.appendingPathComponent("laptop"))
        let prompts = NIOLockedValueBox<[LinkPrompt]>([])
        let joining = Task { () throws(LinkFailure) -> LinkJoin.Linked in
            try await join(offer, into: directory, prompts: prompts)
        }
        let words = try #require(
            link(try await firstEvent(in: events, "the words") { link($0)?.state == .words }))
        #expect(words.id == offer.id && words.name == "laptop" && words.words?.count == 5)
        _ = try await alice.messenger.perform(Operations.ConfirmLink(id: offer.id, yes: true))
        let linked = try await joining.value
        let done = try #require(
            link(try await firstEvent(in: events, "linked") { link($0).map { $0.state != .words } ?? false }))

        #expect(done == LinkProgress(id: offer.id, state: .linked, name: "laptop", device: linked.profile.me))
        #expect(words.device == linked.profile.me)
        #expect(prompts.withLockedValue { $0.map(\.words) } == [words.words ?? []])
        #expect(try alice.local.store.deviceList(of: alice.me).listed.map(\.key) == [linked.profile.me])
        #expect(linked.person == alice.me)

        // The offer has ended: a new one may open, and the old id answers nothing.
        await #expect {
            _ = try await alice.messenger.perform(Operations.ConfirmLink(id: offer.id, yes: true))
        } throws: { error in
            "\(error)".contains("that link offer has ended")
        }
        let next = try await alice.messenger.perform(Operations.OfferLink())
        #expect(next.id != offer.id && next.code != offer.code)
        _ = try await alice.messenger.perform(Operations.CancelLink(id: next.id))
    }

    @Test func aNoFromTheFrontEndLinksNothingAndTheNewMachineHearsIt() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        try await alice.start()
        defer { Task { await alice.stop() } }
        let events = alice.events()
        let offer = try await alice.messenger.perform(Operations.OfferLink())
        let directory = DataDirectory(url: nodes.root.appendingPathComponent("laptop"))
        let prompts = NIOLockedValueBox<[LinkPrompt]>([])
        let joining = Task { () throws(LinkFailure) -> LinkJoin.Linked in
            try await join(offer, into: directory, prompts: prompts)
        }
        // The words were shown: the path to a link worked, so what follows is the no's doing.
        _ = try await firstEvent(in: events, "the words") { link($0)?.state == .words }
        _ = try await alice.messenger.perform(Operations.ConfirmLink(yes: false))
        let failure = await #expect(throws: LinkFailure.self) { _ = try await joining.value }
        #expect(failure?.kind == .refusedThere)
        let ended = try #require(
            link(try await firstEvent(in: events, "failed") { link($0)?.state == .failed }))
        #expect(ended.id == offer.id && ended.message == "you answered no: nothing was linked")
        #expect(try alice.local.store.deviceList(of: alice.me).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test func cancelEndsTheOfferAtOnceAndItsCodeNoLongerReachesIt() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        try await alice.start()
        defer { Task { await alice.stop() } }
        let events = alice.events()
        let offer = try await alice.messenger.perform(Operations.OfferLink())
        _ = try await alice.messenger.perform(Operations.CancelLink(id: offer.id))
        let ended = try #require(
            link(try await firstEvent(in: events, "failed") { link($0)?.state == .failed }))
        #expect(ended.id == offer.id && ended.message == "the offer was cancelled")

        let prompts = NIOLockedValueBox<[LinkPrompt]>([])
        let failure = await #expect(throws: LinkFailure.self) {
            _ = try await join(
                offer, into: DataDirectory(url: nodes.root.appendingPathComponent("laptop")), prompts: prompts)
        }
        #expect(failure?.kind == .unreachable)
        #expect(prompts.withLockedValue { $0.isEmpty })
        // Cancelling what has ended is no error, and a new offer opens, here over the control
        // socket, whose watchers get its events as JSON.
        _ = try await alice.messenger.perform(Operations.CancelLink(id: offer.id))
        let attached = try await AttachedMessenger(local: alice.local)
        defer { Task { await attached.close() } }
        let watched = try await attached.events(for: nil)
        let next = try await attached.perform(Operations.OfferLink())
        _ = try await attached.perform(Operations.CancelLink())
        let heard = try #require(link(try await firstEvent(in: watched, "the next offer failed") { link($0) != nil }))
        #expect(heard == LinkProgress(id: next.id, state: .failed, message: "the offer was cancelled"))
    }

    @Test func anOfferNobodyTakesExpiresAndSaysSo() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        try await alice.start()
        defer { Task { await alice.stop() } }
        let events = alice.events()
        let offer = try await alice.offerLink(timeout: .seconds(1))
        #expect(offer.expiresAt.timeIntervalSinceNow <= 1)
        let ended = try #require(
            link(try await firstEvent(in: events, "expired") { link($0)?.state == .failed }))
        #expect(ended.id == offer.id && ended.message == "the offer expired: nobody linked")
        // It ended on the node: the next opens.
        _ = try await alice.messenger.perform(Operations.OfferLink())
        _ = try await alice.messenger.perform(Operations.CancelLink())
    }

    @Test func aLinkedMachineRefusesToOfferAndNamesTheOneThatCan() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        try await alice.start()
        defer { Task { await alice.stop() } }
        let offer = try await alice.messenger.perform(Operations.OfferLink())
        let options = nodes.options("laptop")
        let prompts = NIOLockedValueBox<[LinkPrompt]>([])
        let events = alice.events()
        let joining = Task { () throws(LinkFailure) -> LinkJoin.Linked in
            try await join(offer, into: options.directory, prompts: prompts)
        }
        _ = try await firstEvent(in: events, "the words") { link($0)?.state == .words }
        _ = try await alice.messenger.perform(Operations.ConfirmLink(yes: true))
        _ = try await joining.value

        let laptop = try Node(options: options)
        try await laptop.start()
        defer { Task { await laptop.stop() } }
        await #expect {
            _ = try await laptop.messenger.perform(Operations.OfferLink())
        } throws: { error in
            "\(error)".hasPrefix(
                "only the machine that holds alice's person key (\(alice.me.shortHex), the first device) can link "
                    + "new machines")
        }
    }

    @Test func withoutANodeTheOfferIsRefusedWithWhatToDo() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        await #expect {
            _ = try await LocalMessenger(local: alice.local).perform(Operations.OfferLink())
        } throws: { error in
            "\(error)".contains("no node runs here to link a new machine: start one with \"confab up\"")
        }
    }
}
