import ConfabModel
import Foundation
import NIOCore
import NIOPosix

/// One connection to a running node's control socket. Requests are answered in order, so
/// many may be in flight at once (a script sending thousands of lines keeps one connection
/// and does not wait a round trip per line); after `watch` is answered, every further line
/// is an event.
final class ControlConnection: Sendable {
    private let channel: any Channel
    /// Lines that answer no request: the events of a `watch`.
    let unsolicited: AsyncStream<ByteBuffer>

    /// Connects, or throws `NodeError.notRunning` when nobody serves the socket.
    init(_ directory: DataDirectory) async throws {
        let (unsolicited, continuation) = AsyncStream.makeStream(
            of: ByteBuffer.self, bufferingPolicy: .bufferingNewest(10_000))
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder()))
                        try channel.pipeline.syncOperations.addHandler(ControlAnswerHandler(events: continuation))
                    }
                }
                .connect(unixDomainSocketPath: ControlServer.socketPath(directory))
                .get()
        } catch {
            throw NodeError.notRunning(directory.path)
        }
        self.unsolicited = unsolicited
    }

    /// Sends a request and returns its result.
    func call<Result: Codable & Sendable>(
        _ request: ControlRequest, as: Result.Type = Result.self
    ) async throws
        -> Result
    {
        try await callAll([request], as: Result.self)[0]
    }

    /// Sends every request before reading any answer (pipelining: one round trip for the
    /// lot), and returns the results in order; the first refusal is thrown.
    func callAll<Result: Codable & Sendable>(
        _ requests: [ControlRequest], as: Result.Type = Result.self
    )
        async throws -> [Result]
    {
        var answers: [EventLoopFuture<ByteBuffer>] = []
        for request in requests {
            let line = try JSONOutput.line(ControlEnvelope(id: nil, request: request))
            let answer = channel.eventLoop.makePromise(of: ByteBuffer.self)
            channel.write(ControlAnswerHandler.Call(line: line, answer: answer), promise: nil)
            answers.append(answer.futureResult)
        }
        channel.flush()
        var results: [Result] = []
        for (request, answer) in zip(requests, answers) {
            let data = Data(try await answer.get().readableBytesView)
            let response = try JSONOutput.decoder().decode(ControlResponse<Result>.self, from: data)
            guard response.v == ControlEnvelope.version else {
                throw NodeError.control(
                    "the running node speaks control protocol version \(response.v), this confab speaks \(ControlEnvelope.version) — use the confab binary that matches the node"
                )
            }
            guard response.ok, let result = response.result else {
                throw NodeError.control(response.error ?? "the node refused \(request.method)")
            }
            results.append(result)
        }
        return results
    }

    func close() {
        channel.close(promise: nil)
    }
}

/// Pairs answers with requests, in order; lines that answer nothing are events.
private final class ControlAnswerHandler: ChannelDuplexHandler {
    struct Call: Sendable {
        let line: String
        let answer: EventLoopPromise<ByteBuffer>
    }

    typealias InboundIn = ByteBuffer
    typealias OutboundIn = Call
    typealias OutboundOut = ByteBuffer

    private var waiting = CircularBuffer<EventLoopPromise<ByteBuffer>>()
    private let events: AsyncStream<ByteBuffer>.Continuation

    init(events: AsyncStream<ByteBuffer>.Continuation) {
        self.events = events
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let call = Self.unwrapOutboundIn(data)
        waiting.append(call.answer)
        context.write(
            Self.wrapOutboundOut(context.channel.allocator.buffer(string: call.line + "\n")), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = Self.unwrapInboundIn(data)
        if let answer = waiting.popFirst() {
            answer.succeed(line)
        } else {
            events.yield(line)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        while let answer = waiting.popFirst() {
            answer.fail(NodeError.control("the node closed the control connection"))
        }
        events.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
