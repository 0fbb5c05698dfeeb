import ConfabModel
import ConfabStore
import Foundation
import Logging
import NIOCore
import NIOPosix

/// Serves the control socket: a Unix domain socket in the data directory, mode 0600, so
/// only the node's owner can drive it.
public final class ControlServer: Sendable {
    private let channel: any Channel
    public let path: String

    public static func start(node: Node, group: any EventLoopGroup, logger: Logger) async throws -> ControlServer {
        let path = node.local.directory.url.appendingPathComponent(ControlProtocol.socketName).path
        // A socket file left by a node that died; the node lock proves nobody serves it.
        unlink(path)
        let channel = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                // The file's mode keeps other users out; the kernel's word on who connected
                // holds even if that mode was loosened by hand.
                Self.peerIsOwner(channel).flatMap { isOwner in
                    guard isOwner else {
                        logger.warning("control socket: refused a connection from another user")
                        return channel.close()
                    }
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder()))
                        try channel.pipeline.syncOperations.addHandler(ControlHandler(node: node, logger: logger))
                    }
                }
            }
            .bind(unixDomainSocketPath: path)
            .get()
        chmod(path, 0o600)
        return ControlServer(channel: channel, path: path)
    }

    /// Whether the process at the other end runs as this user (`SO_PEERCRED`).
    private static func peerIsOwner(_ channel: any Channel) -> EventLoopFuture<Bool> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(false)
        }
        let credentials: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: .socket, name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
        return credentials.map { $0.uid == getuid() }.recover { _ in false }
    }

    private init(channel: any Channel, path: String) {
        self.channel = channel
        self.path = path
    }

    public func stop() async {
        try? await channel.close()
        unlink(path)
    }
}

/// Splits the byte stream into lines, refusing a line longer than the limit.
struct LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - buffer.readerIndex
            let line = buffer.readSlice(length: length)!
            buffer.moveReaderIndex(forwardBy: 1)
            context.fireChannelRead(Self.wrapInboundOut(line))
            return .continue
        }
        if buffer.readableBytes > ControlProtocol.maxLineBytes { throw NodeError.control("control request too long") }
        return .needMoreData
    }
}

/// Answers requests on one control connection, strictly in order: lines are queued and one
/// task works through them. After `watch`, the connection carries events until it closes.
final class ControlHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let node: Node
    let logger: Logger
    private let lines: AsyncStream<ByteBuffer>
    private let continuation: AsyncStream<ByteBuffer>.Continuation
    private let worker = Mutex<Task<Void, Never>?>(nil)

    init(node: Node, logger: Logger) {
        self.node = node
        self.logger = logger
        (lines, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        let node = self.node
        let lines = self.lines
        let task = Task {
            for await line in lines {
                guard
                    let request = try? JSONDecoder().decode(
                        ControlProtocol.Request.self, from: Data(line.readableBytesView))
                else {
                    Self.write(
                        ControlProtocol.Response<ControlProtocol.Empty>(
                            id: nil, ok: false, error: "not a JSON request"),
                        to: channel)
                    continue
                }
                await ControlMethods.handle(request, node: node, channel: channel)
            }
        }
        worker.withLock { $0 = task }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(Self.unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        // Ends a `watch` at once, so the node drops the watcher.
        worker.withLock { $0?.cancel() }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("control connection: \(error)")
        context.close(promise: nil)
    }

    static func write(_ value: some Encodable, to channel: any Channel) {
        guard let text = try? JSONOutput.line(value) else { return }
        let buffer = channel.allocator.buffer(string: text + "\n")
        channel.writeAndFlush(buffer, promise: nil)
    }
}

/// Linux's `struct ucred` (pid, uid, gid), which Glibc's Swift module does not export.
struct PeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
