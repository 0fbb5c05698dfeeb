import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNet
import ConfabNode
import ConfabWire
import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import Testing

/// A man in the middle who knows the code (Protocol.md §20.10): it is the offer to the new
/// machine and a new machine to the offer, relaying every message between its two
/// handshakes. The two machines then show different words, and the person at the offer,
/// seeing that, says no: nothing is linked, whatever the new machine's person answered.
@Suite struct LinkManInTheMiddleTests {
    @Test func aRelayBetweenTwoHandshakesShowsDifferentWords() async throws {
        let offer = try OfferRun(answer: { _ in false })
        let port = try await offer.port()
        let secrets = try LinkSecrets(code: offer.offer.code)
        let group = MultiThreadedEventLoopGroup.singleton
        let middle = try await LinkListener.listen(
            host: "127.0.0.1", port: 0, identity: secrets.offerKey, networkKey: secrets.networkKey, group: group,
            maxMessageBytes: LinkMessageCodec.maxMessageBytes)
        let relay = Task {
            for await attempt in middle.attempts {
                guard case .connected(let victim) = attempt else { continue }
                guard
                    let upstream = try? await LinkDialer.connect(
                        host: "127.0.0.1", port: port, identity: .generate(), networkKey: secrets.networkKey,
                        offer: secrets.offer, group: group, maxMessageBytes: LinkMessageCodec.maxMessageBytes)
                else { return false }
                async let down: Void = Self.pump(from: upstream, to: victim)
                await Self.pump(from: victim, to: upstream)
                await down
                return true
            }
            return false
        }
        let directory = try LinkFixture.newDirectory()
        let prompts = NIOLockedValueBox<[LinkPrompt]>([])
        let failure = await #expect(throws: LinkFailure.self) {
            _ = try await LinkFixture.join(offer.offer.code, port: middle.port, into: directory, prompts: prompts)
        }
        #expect(await relay.value, "the relay ran both handshakes")
        let victimSaw = try #require(prompts.withLockedValue { $0 }.first)
        let offerSaw = try #require(offer.askedPrompts.first)
        #expect(victimSaw.words.count == 5 && offerSaw.words.count == 5)
        #expect(victimSaw.words != offerSaw.words)
        #expect(offerSaw.device != victimSaw.device)
        #expect(failure?.kind == .refusedThere)
        guard case .failure = await offer.task.value else {
            Issue.record("the offer linked the man in the middle")
            return
        }
        #expect(try offer.profile.store.deviceList(of: offer.profile.me).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        await middle.close()
    }

    static func pump(from source: LinkConnection, to sink: LinkConnection) async {
        while let message = try? await source.receive() {
            guard (try? await sink.send(message)) != nil else { break }
        }
        await sink.close()
    }
}
