import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNode
import ConfabWire
import Foundation
import NIOConcurrencyHelpers
import Testing

/// Linking end to end over real loopback sockets (Protocol.md §20.10): the offer of a real
/// profile, the new machine's handshake, words, grant and data directory.
@Suite struct LinkTests {
    @Test func aLinkAddsTheDeviceAndBothSidesAgree() async throws {
        let offer = try OfferRun()
        _ = try offer.profile.store.createConversation(with: [NodeID(SigningKeyPair.generate().publicKey)])
        let heldKeys = try offer.profile.store.epochKeys()
        try #require(!heldKeys.isEmpty)
        let port = try await offer.port()
        let directory = try LinkFixture.newDirectory()
        let prompts = NIOLockedValueBox<[LinkPrompt]>([])
        let (join, linked) = try await LinkFixture.join(offer.offer.code, port: port, into: directory, prompts: prompts)
        let result = try await offer.task.value.get()
        let device = NodeID(join.device.publicKey)

        #expect(result.device == device)
        #expect(result.name == "laptop")
        #expect(offer.askedPrompts.map(\.words) == prompts.withLockedValue { $0 }.map(\.words))
        #expect(offer.askedPrompts.first?.words.count == 5)
        let held = try offer.profile.store.deviceList(of: offer.profile.me)
        #expect(held.devices.map(\.key) == [offer.profile.me, device])

        #expect(linked.person == offer.profile.me)
        #expect(linked.personName == "alice")
        let reopened = try Profile.open(directory)
        #expect(reopened.me == device)
        #expect(try reopened.store.linkedPerson() == offer.profile.me)
        #expect(try reopened.store.displayName() == "alice")
        #expect(try reopened.store.deviceList(of: offer.profile.me) == held)
        // The keys held, and the personal conversation's, made for the link (§20.15).
        let personal = try #require(try offer.profile.store.personalConversation())
        #expect(try reopened.store.epochKeys() == offer.profile.store.epochKeys())
        #expect(
            Set(try reopened.store.epochKeys().map(\.conversation))
                == Set(heldKeys.map(\.conversation)).union([personal]))
    }

    @Test func aNoFromTheOfferingSideLinksNothing() async throws {
        let offer = try OfferRun(answer: { _ in false })
        let port = try await offer.port()
        let directory = try LinkFixture.newDirectory()
        let failure = await #expect(throws: LinkFailure.self) {
            _ = try await LinkFixture.join(offer.offer.code, port: port, into: directory)
        }
        #expect(failure?.kind == .refusedThere)
        guard case .failure(let ended) = await offer.task.value else {
            Issue.record("the offer linked")
            return
        }
        #expect(ended.kind == .refusedHere)
        #expect(offer.askedPrompts.count == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        #expect(try offer.profile.store.deviceList(of: offer.profile.me).isEmpty)
    }

    @Test func aNoFromTheNewMachineLinksNothing() async throws {
        let offer = try OfferRun()
        let port = try await offer.port()
        let directory = try LinkFixture.newDirectory()
        let prompts = NIOLockedValueBox<[LinkPrompt]>([])
        let failure = await #expect(throws: LinkFailure.self) {
            _ = try await LinkFixture.join(
                offer.offer.code, port: port, into: directory, answer: { _ in false }, prompts: prompts)
        }
        #expect(failure?.kind == .refusedHere)
        #expect(prompts.withLockedValue { $0.count } == 1)
        guard case .failure(let ended) = await offer.task.value else {
            Issue.record("the offer linked")
            return
        }
        #expect(ended.kind == .refusedThere)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        #expect(try offer.profile.store.deviceList(of: offer.profile.me).isEmpty)
    }

    @Test func aLinkedDeviceDoesNotOffer() async throws {
        let offer = try OfferRun()
        let port = try await offer.port()
        let directory = try LinkFixture.newDirectory()
        let (_, linked) = try await LinkFixture.join(offer.offer.code, port: port, into: directory)
        _ = try await offer.task.value.get()
        let refusal = #expect(throws: LinkFailure.self) {
            _ = try LinkOffer(profile: linked.profile, networkKey: .default)
        }
        #expect(refusal?.kind == .notAllowed)
    }
}
