import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNode
import ConfabWire
import Foundation
import NIOCore
import NIOPosix
import Testing

/// What a party without the code gets from an offer (Protocol.md §20.10): nothing, and three
/// tries end the offer; a recorded message 1 replayed gets no further than message 2.
@Suite struct LinkAttemptTests {
    /// A code that is not the offer's: the same symbols with the last one changed.
    static func wrong(_ code: LinkCode) -> LinkCode {
        let last = code.symbols.last == "0" ? "1" : "0"
        return LinkCode(text: String(code.symbols.dropLast()) + last)!
    }

    @Test func threeWrongCodesEndTheOffer() async throws {
        let offer = try OfferRun()
        let port = try await offer.port()
        let directory = try LinkFixture.newDirectory()
        for remaining in [2, 1] {
            let failure = await #expect(throws: LinkFailure.self) {
                _ = try await LinkFixture.join(Self.wrong(offer.offer.code), port: port, into: directory)
            }
            #expect(failure?.kind == .codeRefused)
            guard case .triedAndFailed(let left, _)? = await offer.next() else {
                Issue.record("the offer did not count the wrong code")
                return
            }
            #expect(left == remaining)
        }
        _ = try? await LinkFixture.join(Self.wrong(offer.offer.code), port: port, into: directory)
        guard case .failure(let ended) = await offer.task.value else {
            Issue.record("the offer linked")
            return
        }
        #expect(ended.kind == .offerEnded)
        // Ended by the tries, not by its time running out.
        #expect(ended.description.contains("after 3 failed tries"), "\(ended)")
        let late = await #expect(throws: LinkFailure.self) {
            _ = try await LinkFixture.join(offer.offer.code, port: port, into: directory)
        }
        #expect(late?.kind == .unreachable)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        #expect(try offer.profile.store.deviceList(of: offer.profile.me).isEmpty)
    }

    @Test func aReplayedMessageOneGetsNoFurther() async throws {
        let offer = try OfferRun()
        let port = try await offer.port()
        let secrets = try LinkSecrets(code: offer.offer.code)
        // The message 1 of a handshake someone recorded: valid, under the right code.
        let recorded = try SecretHandshakeClient(
            networkKey: secrets.networkKey.bytes, keyPair: .generate(), serverPublicKey: secrets.offer.signingKey
        ).challenge
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: recorded))
            var received: [UInt8] = []
            var iterator = inbound.makeAsyncIterator()
            while received.count < SecretHandshake.challengeLength, let chunk = try await iterator.next() {
                received += Array(buffer: chunk)
            }
            // The server answered message 2: the recorded message passed its HMAC check.
            #expect(received.count == SecretHandshake.challengeLength)
            // Message 3 needs the recorder's ephemeral secret, which it never had.
            try await outbound.write(ByteBuffer(bytes: Random.bytes(SecretHandshake.clientAuthLength)))
            while try await iterator.next() != nil {}
        }
        guard case .triedAndFailed(let left, _)? = await offer.next() else {
            Issue.record("the replay was not counted as a failed try")
            return
        }
        #expect(left == 2)
        #expect(try offer.profile.store.deviceList(of: offer.profile.me).isEmpty)
        offer.task.cancel()
    }
}
