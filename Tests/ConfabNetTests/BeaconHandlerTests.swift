import ConfabCrypto
import ConfabModel
import ConfabWire
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

@testable import ConfabNet

@Suite("Beacon handlers")
struct BeaconHandlerTests {
    let sender = try! SocketAddress(ipAddress: "127.0.0.1", port: 7460)

    final class Heard: Sendable {
        private let beacons = NIOLockedValueBox<[Beacon]>([])
        var all: [Beacon] { beacons.withLockedValue { $0 } }
        func append(_ beacon: Beacon) { beacons.withLockedValue { $0.append(beacon) } }
    }

    func receiver(
        own: SigningKeyPair = Keys.alice, counters: DiscoveryCounters = DiscoveryCounters(),
        attention: BeaconAttention = .everything
    ) throws -> (EmbeddedChannel, Heard) {
        let heard = Heard()
        let handler = BeaconReceiver(
            ownNode: own.id, networkKey: .default, logger: quietLogger(), counters: counters,
            attention: attention.wants
        ) { beacon, _ in
            heard.append(beacon)
        }
        let channel = EmbeddedChannel(handler: handler)
        try channel.activate()
        return (channel, heard)
    }

    func datagram(
        from keys: SigningKeyPair, timestamp: Int64, networkKey: NetworkKey = .default, port: UInt16 = 7461
    ) -> [UInt8] {
        BeaconCodec.encode(
            Beacon(node: keys.id, tcpPort: port, role: .person, timestamp: timestamp), signedBy: keys,
            networkKey: networkKey)
    }

    func deliver(_ bytes: [UInt8], to channel: EmbeddedChannel, from source: SocketAddress? = nil) throws {
        try channel.writeInbound(AddressedEnvelope(remoteAddress: source ?? sender, data: ByteBuffer(bytes: bytes)))
    }

    @Test func acceptsAPeersBeacon() throws {
        let (channel, heard) = try receiver()
        try deliver(datagram(from: Keys.bob, timestamp: 1000, port: 9999), to: channel)
        #expect(heard.all == [Beacon(node: Keys.bob.id, tcpPort: 9999, role: .person, timestamp: 1000)])
    }

    @Test func ignoresItsOwnBeacon() throws {
        let (channel, heard) = try receiver(own: Keys.alice)
        try deliver(datagram(from: Keys.alice, timestamp: 1000), to: channel)
        #expect(heard.all.isEmpty)
    }

    @Test func ignoresBeaconsOfAnotherNetwork() throws {
        let (channel, heard) = try receiver()
        try deliver(datagram(from: Keys.bob, timestamp: 1000, networkKey: .random()), to: channel)
        #expect(heard.all.isEmpty)
    }

    @Test func ignoresAForgedSignature() throws {
        let (channel, heard) = try receiver()
        var forged = datagram(from: Keys.bob, timestamp: 1000)
        forged[forged.count - 1] ^= 0x01
        try deliver(forged, to: channel)
        // Carol signs a beacon that claims to be Bob's.
        let content = Beacon(node: Keys.bob.id, tcpPort: 7461, role: .person, timestamp: 1001)
        var claimed = BeaconCodec.encode(content, signedBy: Keys.carol, networkKey: .default)
        let bobKey = Keys.bob.publicKey.bytes
        let carolKey = Keys.carol.publicKey.bytes
        if let range = claimed.firstRange(of: carolKey) {
            claimed.replaceSubrange(range, with: bobKey)
        }
        try deliver(claimed, to: channel)
        #expect(heard.all.isEmpty)
        #expect(channel.isActive)
    }

    @Test func ignoresGarbageWithoutFailing() throws {
        let (channel, heard) = try receiver()
        for bytes in [[], [0x43, 0x46, 0x42, 0x31], Array("hello".utf8), [UInt8](repeating: 0x43, count: 600)] {
            try deliver(bytes, to: channel)
        }
        try deliver(datagram(from: Keys.bob, timestamp: 5), to: channel)
        #expect(heard.all.map(\.timestamp) == [5])
        #expect(channel.isActive)
    }

    @Test func ignoresReplaysAndOlderBeacons() throws {
        let (channel, heard) = try receiver()
        let first = datagram(from: Keys.bob, timestamp: 2000)
        try deliver(first, to: channel)
        try deliver(first, to: channel)
        try deliver(datagram(from: Keys.bob, timestamp: 1999), to: channel)
        try deliver(datagram(from: Keys.bob, timestamp: 2001), to: channel)
        // Another node's timestamps are its own business.
        try deliver(datagram(from: Keys.carol, timestamp: 10), to: channel)
        #expect(heard.all.map(\.timestamp) == [2000, 2001, 10])
    }

    /// Our own beacons (which come back) and replays (every beacon arrives twice on a LAN
    /// with IPv6) are dropped before their signature is checked; the rest are checked.
    @Test func ownBeaconsAndReplaysCostNoSignatureCheck() throws {
        let counters = DiscoveryCounters()
        let (channel, heard) = try receiver(own: Keys.alice, counters: counters)
        let bobs = datagram(from: Keys.bob, timestamp: 2000)
        try deliver(bobs, to: channel)
        try deliver(bobs, to: channel)
        try deliver(datagram(from: Keys.bob, timestamp: 1500), to: channel)
        try deliver(datagram(from: Keys.alice, timestamp: 3000), to: channel)
        try deliver(datagram(from: Keys.carol, timestamp: 10), to: channel)
        #expect(heard.all.map(\.timestamp) == [2000, 10])
        #expect(counters.snapshot == .init(datagrams: 5, verified: 2, repeats: 0, accepted: 2, sent: 0))
    }

    /// The lie: a beacon that claims Bob's key and a timestamp far ahead, badly signed. Its
    /// timestamp is not remembered (only a checked beacon's is), so Bob's next genuine
    /// beacon is still accepted.
    @Test func aForgedTimestampDoesNotSilenceTheGenuineSender() throws {
        let (channel, heard) = try receiver()
        var forged = datagram(from: Keys.bob, timestamp: .max - 1)
        forged[forged.count - 1] ^= 0x01
        try deliver(forged, to: channel)
        try deliver(datagram(from: Keys.bob, timestamp: 2000), to: channel)
        #expect(heard.all.map(\.timestamp) == [2000])
    }

    /// A node with its share of strangers: a beacon that only repeats the last one accepted
    /// from a key it neither shows nor wants costs no signature check and never reaches the
    /// node; anything new in it (a port, rooms, the address it came from) is checked and
    /// passed on.
    @Test func repeatsTheNodeHasNoUseForAreDroppedUnchecked() throws {
        let counters = DiscoveryCounters()
        let (channel, heard) = try receiver(counters: counters, attention: BeaconAttention(everyKey: false))
        try deliver(datagram(from: Keys.bob, timestamp: 1000), to: channel)
        try deliver(datagram(from: Keys.bob, timestamp: 2000), to: channel)
        // The same repeat again, as it arrives over the other family.
        let elsewhere = try SocketAddress(ipAddress: "127.0.0.9", port: 7460)
        try deliver(datagram(from: Keys.bob, timestamp: 2000), to: channel, from: elsewhere)
        #expect(heard.all.map(\.timestamp) == [1000])
        #expect(counters.snapshot.repeats == 2)
        #expect(counters.snapshot.verified == 1)
        try deliver(datagram(from: Keys.bob, timestamp: 3000, port: 9999), to: channel)
        try deliver(datagram(from: Keys.bob, timestamp: 4000, port: 9999), to: channel, from: elsewhere)
        let rooms = Beacon(
            node: Keys.bob.id, tcpPort: 9999, role: .person, timestamp: 5000,
            rooms: [RoomTag(room: ConversationID(validatedBytes: [UInt8](repeating: 7, count: 32)))])
        try deliver(BeaconCodec.encode(rooms, signedBy: Keys.bob, networkKey: .default), to: channel, from: elsewhere)
        #expect(heard.all.map(\.timestamp) == [1000, 3000, 4000, 5000])
        #expect(counters.snapshot.verified == 4)
    }

    /// Whom the node names, a beacon of a relay where relays count, and a beacon naming a
    /// room that seeks members are checked and passed on however often they repeat.
    @Test func repeatsOfWhatTheNodeAttendsToAreCheckedAndPassedOn() throws {
        let room = RoomTag(room: ConversationID(validatedBytes: [UInt8](repeating: 7, count: 32)))
        let attention = BeaconAttention(everyKey: false, keys: [Keys.bob.id], roomTags: [room], relays: true)
        let dave = SigningKeyPair.generate()
        let (channel, heard) = try receiver(attention: attention)
        let relay = { (timestamp: Int64) in
            BeaconCodec.encode(
                Beacon(node: Keys.carol.id, tcpPort: 7461, role: .relay, timestamp: timestamp), signedBy: Keys.carol,
                networkKey: .default)
        }
        let member = { (timestamp: Int64) in
            BeaconCodec.encode(
                Beacon(node: dave.id, tcpPort: 7461, role: .person, timestamp: timestamp, rooms: [room]),
                signedBy: dave, networkKey: .default)
        }
        for timestamp: Int64 in [1000, 2000, 3000] {
            try deliver(datagram(from: Keys.bob, timestamp: timestamp), to: channel)
            try deliver(relay(timestamp), to: channel)
            try deliver(member(timestamp), to: channel)
        }
        #expect(heard.all.count == 9)
        #expect(
            !BeaconAttention(everyKey: false).wants(Beacon(node: Keys.carol.id, tcpPort: 1, role: .relay, timestamp: 1))
        )
    }

    /// The lie: beacons that claim Bob's key, repeat what Bob said and carry a timestamp far
    /// ahead, badly signed. They are dropped as repeats, unchecked, and their timestamp is not
    /// remembered: Bob's genuine beacon that says something new is still checked and accepted.
    @Test func aForgedRepeatDoesNotSilenceTheGenuineSender() throws {
        let counters = DiscoveryCounters()
        let (channel, heard) = try receiver(counters: counters, attention: BeaconAttention(everyKey: false))
        try deliver(datagram(from: Keys.bob, timestamp: 1000), to: channel)
        var forged = datagram(from: Keys.bob, timestamp: .max - 1)
        forged[forged.count - 1] ^= 0x01
        try deliver(forged, to: channel)
        #expect(counters.snapshot.repeats == 1)
        try deliver(datagram(from: Keys.bob, timestamp: 2000, port: 9999), to: channel)
        #expect(heard.all.map(\.tcpPort) == [7461, 9999])
    }

    /// The keys heard lately, which stretch this node's own pace on a crowded LAN, count
    /// each key once and only within the window.
    @Test func keysHeardCountsEachKeyOnceWithinTheWindow() {
        let replays = BeaconReplayGuard()
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)
        #expect(replays.accept(Beacon(node: Keys.bob.id, tcpPort: 1, role: .person, timestamp: 1), now: start))
        #expect(replays.accept(Beacon(node: Keys.bob.id, tcpPort: 1, role: .person, timestamp: 2), now: start))
        #expect(
            replays.accept(
                Beacon(node: Keys.carol.id, tcpPort: 1, role: .person, timestamp: 1), now: start + .seconds(100)))
        #expect(replays.keysHeard(within: .seconds(150), now: start + .seconds(100)) == 2)
        #expect(replays.keysHeard(within: .seconds(150), now: start + .seconds(200)) == 1)
        #expect(replays.keysHeard(within: .seconds(150), now: start + .seconds(300)) == 0)
    }

    @Test func socketErrorsDoNotEndDiscovery() throws {
        let (channel, heard) = try receiver()
        channel.pipeline.fireErrorCaught(ChannelError.ioOnClosedChannel)
        try channel.throwIfErrorCaught()
        try deliver(datagram(from: Keys.bob, timestamp: 1), to: channel)
        #expect(heard.all.count == 1)
    }

    // MARK: Announcer

    func announcer(
        targets: [SocketAddress], schedule: BeaconSchedule = .constant(.milliseconds(1500)),
        keysHeard: @escaping () -> Int = { 0 }, clock: @escaping () -> Int64 = { 1000 }
    ) -> EmbeddedChannel {
        EmbeddedChannel(
            handler: BeaconAnnouncer(
                identity: Keys.alice, networkKey: .default, tcpPort: 7461, role: .relay, targets: targets,
                schedule: schedule, logger: quietLogger(), keysHeard: keysHeard, clock: clock))
    }

    /// The lie: made-up keys, each validly signed and free to make, inflate the count of keys
    /// heard. The announcer slows down for them, but beacons at least every 75 s (×1.25), so
    /// its peers still see it present; with few keys heard it keeps the 30 s pace.
    @Test func aFloodOfMadeUpKeysSlowsTheAnnouncerOnlyToItsBound() throws {
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: 7470)
        let flooded = announcer(targets: [target], schedule: .standard, keysHeard: { 1_000_000 })
        let quiet = announcer(targets: [target], schedule: .standard)
        for channel in [flooded, quiet] {
            try channel.activate()
            // Past the fast phase and the doubling (15 s + 3 + 6 + 12 + 24 + 48 s, ×1.25 at most).
            channel.embeddedEventLoop.advanceTime(by: .seconds(140))
            _ = try sent(channel)
        }
        var times: [Int64] = []
        for second in 1...1200 {
            flooded.embeddedEventLoop.advanceTime(by: .seconds(1))
            if try !sent(flooded).isEmpty { times.append(Int64(second)) }
        }
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(times.count >= 12, "at least one beacon per 94 s over 20 minutes")
        #expect(gaps.allSatisfy { $0 <= 94 }, "gaps \(gaps)")
        #expect(gaps.contains { $0 > 38 }, "slower than the 30 s pace (×1.25): gaps \(gaps)")
        quiet.embeddedEventLoop.advanceTime(by: .seconds(1200))
        #expect(try sent(quiet).count >= 32, "the plain pace: one beacon per 37.5 s at most")
    }

    func sent(_ channel: EmbeddedChannel) throws -> [(SocketAddress, Beacon)] {
        var out: [(SocketAddress, Beacon)] = []
        while let envelope = try channel.readOutbound(as: AddressedEnvelope<ByteBuffer>.self) {
            let beacon = try BeaconCodec.decode(Array(envelope.data.readableBytesView), networkKey: .default)
            out.append((envelope.remoteAddress, try #require(beacon)))
        }
        return out
    }

    @Test func announcesToEveryTargetAtOnce() throws {
        let targets = [
            try SocketAddress(ipAddress: "127.255.255.255", port: 7460),
            try SocketAddress(ipAddress: "127.0.0.1", port: 7470),
        ]
        let channel = announcer(targets: targets)
        #expect(try sent(channel).isEmpty)
        try channel.activate()
        let beacons = try sent(channel)
        #expect(beacons.map(\.0) == targets)
        #expect(
            beacons.allSatisfy { $0.1 == Beacon(node: Keys.alice.id, tcpPort: 7461, role: .relay, timestamp: 1000) })
    }

    @Test func announcesAgainWithinTheJitteredInterval() throws {
        let channel = announcer(targets: [try SocketAddress(ipAddress: "127.0.0.1", port: 7470)])
        try channel.activate()
        #expect(try sent(channel).count == 1)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1124))
        #expect(try sent(channel).isEmpty)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1876 - 1124))
        #expect(try sent(channel).count == 1)
        // Over a long run the mean interval is close to the nominal one.
        channel.embeddedEventLoop.advanceTime(by: .seconds(150))
        let count = try sent(channel).count
        #expect((80...125).contains(count))
    }

    @Test func timestampsIncreaseStrictlyEvenWhenTheClockDoesNot() throws {
        let channel = announcer(targets: [try SocketAddress(ipAddress: "127.0.0.1", port: 7470)], clock: { 5000 })
        try channel.activate()
        let announcer = try channel.pipeline.syncOperations.handler(type: BeaconAnnouncer.self)
        announcer.announceNow()
        announcer.announceNow()
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(try sent(channel).map(\.1.timestamp) == [5000, 5001, 5002, 5003])
    }

    @Test func stopsWhenTheChannelCloses() throws {
        let channel = announcer(targets: [try SocketAddress(ipAddress: "127.0.0.1", port: 7470)])
        try channel.activate()
        _ = try sent(channel)
        try channel.close().wait()
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(try sent(channel).isEmpty)
    }

    @Test func slowsDownWhileNothingChangesAndIsFastAgainOnNewTargets() throws {
        let first = try SocketAddress(ipAddress: "127.0.0.1", port: 7470)
        let schedule = BeaconSchedule(fast: .seconds(1), slow: .seconds(8), fastPhase: .seconds(3))
        let channel = announcer(targets: [first], schedule: schedule)
        try channel.activate()
        #expect(try sent(channel).count == 1)
        // Fast (1 s ±25 %) for 3 s, then 2, 4, 8, 8 … s: at most 3 + 1 + 1 + 1 beacons in 12 s
        // after the first, at least 2 + 1 + 1 (jitter may make each wait longer).
        channel.embeddedEventLoop.advanceTime(by: .seconds(12))
        let early = try sent(channel).count
        #expect((4...7).contains(early))
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        let idle = try sent(channel).count
        #expect((6...10).contains(idle), "about one beacon per 8 s, got \(idle) in 60 s")

        let second = try SocketAddress(ipAddress: "127.0.0.2", port: 7470)
        let handler = try channel.pipeline.syncOperations.handler(type: BeaconAnnouncer.self)
        handler.update(targets: [second])
        #expect(try sent(channel).map(\.0) == [second])
        channel.embeddedEventLoop.advanceTime(by: .seconds(3))
        #expect(try sent(channel).count >= 2)
    }

    @Test func withoutTargetsNothingIsSent() throws {
        let channel = announcer(targets: [])
        try channel.activate()
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(try sent(channel).isEmpty)
    }
}
