import ConfabCrypto
import ConfabModel
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import ConfabNet

/// One dial per peer at a time, whatever address each caller has for it: a caller with
/// another address waits for the dial under way and, if that fails, tries its own; a caller
/// with the same address takes the result of the dial under way.
@Suite(.timeLimit(.minutes(1)))
struct DialAddressTests {
    /// A listener that accepts and never answers, counting what it accepted: a dial to it
    /// stays in its handshake until the handshake timeout.
    private struct Mute {
        let channel: any Channel
        let accepted: NIOLockedValueBox<Int>
        var port: Int { channel.localAddress!.port! }

        static func start(group: any EventLoopGroup) async throws -> Mute {
            let accepted = NIOLockedValueBox(0)
            let channel = try await ServerBootstrap(group: group)
                .childChannelInitializer { channel in
                    accepted.withLockedValue { $0 += 1 }
                    return channel.eventLoop.makeSucceededVoidFuture()
                }
                .bind(host: "127.0.0.1", port: 0).get()
            return Mute(channel: channel, accepted: accepted)
        }
    }

    /// The dead address is also the lie this covers: the addresses dialled come from peers'
    /// words (a beacon's source address, which anyone can replay from a host of their
    /// choosing, and a Hello's listen port), and a liar's host can simply never answer.
    @Test func aDialToALiveAddressThatFindsOneToADeadAddressUnderWayTriesItsOwnAfterIt() async throws {
        try await withEventLoopGroup { group in
            let mute = try await Mute.start(group: group)
            let bob = try await TestNode.start(Keys.bob, group: group)
            let alice = try await TestNode.start(Keys.alice, group: group) { $0.handshakeTimeout = .seconds(1) }
            let service = alice.service
            // Bob's old address, or one a replayed beacon gave (a host that never answers), is
            // dialled first...
            let stale = Task { try await service.dial(host: "127.0.0.1", port: mute.port, remote: bob.id) }
            try await eventually("the dial to the stale address is under way") {
                mute.accepted.withLockedValue { $0 } == 1
            }
            // ...and his live address while it is: without trying its own address, this
            // dial would share the stale one's timeout.
            let session = try await withTimeout("dial to the live address") {
                try await service.dial(host: "127.0.0.1", port: bob.port, remote: bob.id)
            }
            #expect(session.remote == bob.id)
            // The stale dial still ends as its own address decides.
            await #expect(throws: SessionError.handshakeTimedOut(after: .seconds(1))) { _ = try await stale.value }
            #expect(alice.service.session(with: bob.id) != nil)
            try await alice.shutdown()
            try await bob.shutdown()
            try await mute.channel.close()
        }
    }

    @Test func aDialToTheSameAddressAsOneUnderWayTakesItsResultWithoutConnectingAgain() async throws {
        try await withEventLoopGroup { group in
            let mute = try await Mute.start(group: group)
            let alice = try await TestNode.start(Keys.alice, group: group) { $0.handshakeTimeout = .seconds(1) }
            let service = alice.service
            let first = Task { try await service.dial(host: "127.0.0.1", port: mute.port, remote: Keys.bob.id) }
            try await eventually("the first dial is under way") { mute.accepted.withLockedValue { $0 } == 1 }
            await #expect(throws: SessionError.handshakeTimedOut(after: .seconds(1))) {
                _ = try await service.dial(host: "127.0.0.1", port: mute.port, remote: Keys.bob.id)
            }
            _ = await first.result
            #expect(mute.accepted.withLockedValue { $0 } == 1)
            try await alice.shutdown()
            try await mute.channel.close()
        }
    }

    /// Shutdown waits for every dial under way, so the event loops can stop right after it:
    /// a connect left pending when the loops stop is a leaked promise (a crash in a debug
    /// build). The window this closes (a dial by host name still resolving, before any
    /// channel exists for shutdown to close) is too short to hold open from here; this pins
    /// what shutdown promises for both kinds of dial.
    @Test func shutdownReturnsOnlyOnceEveryDialUnderWayHasEnded() async throws {
        try await withEventLoopGroup { group in
            let mute = try await Mute.start(group: group)
            let alice = try await TestNode.start(Keys.alice, group: group) { $0.handshakeTimeout = .seconds(30) }
            let service = alice.service
            let byName = Task { try await service.dial(host: "localhost", port: mute.port, remote: Keys.bob.id) }
            let byAddress = Task {
                try await service.dial(host: "127.0.0.1", port: mute.port, remote: Keys.carol.id)
            }
            try await eventually("both dials are under way") { service.core.dialsUnderWay == 2 }
            try await withTimeout("shutdown, well within the handshake timeout") { try await alice.shutdown() }
            #expect(service.core.dialsUnderWay == 0)
            await #expect(throws: (any Error).self) { _ = try await byName.value }
            await #expect(throws: (any Error).self) { _ = try await byAddress.value }
            try await mute.channel.close()
        }
    }
}
