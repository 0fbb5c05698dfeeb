import ConfabCrypto
import ConfabModel
import ConfabWire
import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Sends this node's signed beacon to every target: once as soon as the socket is up, then
/// at the pace of its `BeaconSchedule` ±25 %, whenever `announceNow()` is called, and at
/// once (the pace fast again) when the targets change.
///
/// Timestamps are milliseconds of the wall clock, forced to increase strictly: receivers
/// drop a beacon that is not newer than the last one they accepted from us (Protocol.md
/// §11.4), so two beacons in the same millisecond must not share one.
final class BeaconAnnouncer: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    private let identity: SigningKeyPair
    private let networkKey: NetworkKey
    private let tcpPort: UInt16
    private let role: NodeRole
    private var targets: [SocketAddress]
    private var schedule: BeaconSchedule
    private let logger: Logger
    private let counters: DiscoveryCounters
    /// Other keys heard lately, which stretch the slow pace on a crowded LAN.
    private let keysHeard: () -> Int
    /// Tags of the rooms joined, read for each beacon.
    private let rooms: () -> [RoomTag]
    private let clock: () -> Int64
    private var lastTimestamp = Int64.min
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(
        identity: SigningKeyPair, networkKey: NetworkKey, tcpPort: UInt16, role: NodeRole,
        targets: [SocketAddress], schedule: BeaconSchedule, logger: Logger,
        counters: DiscoveryCounters = DiscoveryCounters(), keysHeard: @escaping () -> Int = { 0 },
        rooms: @escaping () -> [RoomTag] = { [] }, clock: @escaping () -> Int64 = BeaconAnnouncer.wallClockMilliseconds
    ) {
        self.rooms = rooms
        self.counters = counters
        self.keysHeard = keysHeard
        self.identity = identity
        self.networkKey = networkKey
        self.tcpPort = tcpPort
        self.role = role
        self.targets = targets
        self.schedule = schedule
        self.logger = logger
        self.clock = clock
    }

    static func wallClockMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { start(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    /// Sends a beacon at once, outside the schedule (for example after a network change).
    func announceNow() {
        guard let context, context.channel.isActive else { return }
        announce(context: context)
    }

    /// New targets (the machine's networks changed): beacon to them at once, and fast for
    /// a while, so peers on a new network see this node without waiting for the slow pace.
    func update(targets: [SocketAddress]) {
        self.targets = targets
        restart()
    }

    /// Fast again from now, starting with a beacon at once.
    func restart() {
        guard let context, context.channel.isActive else { return }
        schedule.restart()
        timer?.cancel()
        timer = nil
        start(context: context)
    }

    private func start(context: ChannelHandlerContext) {
        guard timer == nil else { return }
        announce(context: context)
        scheduleNext(context: context)
    }

    private func stop() {
        timer?.cancel()
        timer = nil
    }

    private func scheduleNext(context: ChannelHandlerContext) {
        let wait = schedule.next(keysHeard: keysHeard())
        let jittered = TimeAmount.nanoseconds(Int64(Double(wait.nanoseconds) * Double.random(in: 0.75...1.25)))
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: jittered) {
            guard self.timer != nil else { return }
            self.announce(context: context)
            self.scheduleNext(context: context)
        }
    }

    private func announce(context: ChannelHandlerContext) {
        guard !targets.isEmpty else { return }
        counters.sent.add(1, ordering: .relaxed)
        lastTimestamp = max(clock(), lastTimestamp &+ 1)
        let beacon = Beacon(
            node: NodeID(identity.publicKey), tcpPort: tcpPort, role: role, timestamp: lastTimestamp, rooms: rooms())
        let datagram = context.channel.allocator.buffer(
            bytes: BeaconCodec.encode(beacon, signedBy: identity, networkKey: networkKey))
        for target in targets {
            let promise = context.eventLoop.makePromise(of: Void.self)
            let logger = self.logger
            promise.futureResult.whenFailure { error in
                logger.debug("beacon not sent", metadata: ["target": "\(target)", "reason": "\(error)"])
            }
            context.write(
                Self.wrapOutboundOut(AddressedEnvelope(remoteAddress: target, data: datagram)), promise: promise)
        }
        context.flush()
    }
}
