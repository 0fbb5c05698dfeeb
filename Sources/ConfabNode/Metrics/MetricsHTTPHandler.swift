import ConfabClient
import NIOCore
import NIOHTTP1

/// Answers `GET /metrics` with the Prometheus text exposition and everything else with
/// 404 or 405. One request at a time per connection; the body of a request is ignored;
/// a connection idle for 30 s is closed.
final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let exposition: @Sendable () -> [UInt8]
    private var request: HTTPRequestHead?

    init(exposition: @escaping @Sendable () -> [UInt8]) {
        self.exposition = exposition
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            request = head
        case .body:
            break
        case .end:
            guard let head = request else { return }
            request = nil
            respond(to: head, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let status: HTTPResponseStatus
        var body: [UInt8]
        var contentType = "text/plain; charset=utf-8"
        if head.method != .GET && head.method != .HEAD {
            status = .methodNotAllowed
            body = Array("only GET is supported\n".utf8)
        } else if path != "/metrics" {
            status = .notFound
            body = Array("not found: metrics are at /metrics\n".utf8)
        } else {
            status = .ok
            body = exposition()
            contentType = "text/plain; version=0.0.4; charset=utf-8"
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: "\(body.count)")
        if !head.isKeepAlive { headers.add(name: "Connection", value: "close") }
        if head.method == .HEAD { body = [] }
        context.write(
            Self.wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
            promise: nil)
        if !body.isEmpty {
            context.write(
                Self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let keepAlive = head.isKeepAlive
        context.writeAndFlush(Self.wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            if !keepAlive { context.close(promise: nil) }
        }
    }
}
