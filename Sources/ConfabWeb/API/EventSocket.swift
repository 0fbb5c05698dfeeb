import ConfabClient
import ConfabModel
import Hummingbird
import HummingbirdWebSocket
import NIOWebSocket

/// `GET /api/v1/events` as a WebSocket: `{"v":1,"ok":true,"result":{}}` once subscribed,
/// then each event exactly as `watch --json` prints it, one per text message (Protocol.md
/// §13.1). Each tab has a queue of its own, bounded: a tab that stops reading (a laptop
/// lid, a frozen page) is closed with code 4008 once its queue is full, and reads the state
/// again when it reconnects, so it costs the node a bounded amount and slows no one else.
struct EventSocket: Sendable {
    static var queueLimit: Int { 1_000 }
    /// "You fell behind; read the state again" (a code in the range private to applications).
    static var fellBehind: WebSocketErrorCode { .init(codeNumber: 4008) }

    let fanOut: EventFanOut

    func add(to router: Router<BasicWebSocketRequestContext>) {
        router.ws("/api/v1/events") { request, _ in
            guard let value = request.uri.queryParameters["conversation"] else { return .upgrade([:]) }
            return ConversationID(hex: String(value)) == nil ? .dontUpgrade : .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let conversation = context.request.uri.queryParameters["conversation"].flatMap {
                ConversationID(hex: String($0))
            }
            try await serve(conversation: conversation, inbound: inbound, outbound: outbound)
        }
    }

    private func serve(
        conversation: ConversationID?, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async throws {
        let tab = try await fanOut.subscribe(conversation: conversation, limit: Self.queueLimit)
        do {
            try await outbound.write(.text(try JSONOutput.line(ControlResponse.success(ControlEmpty(), id: nil))))
            try await forward(tab, inbound: inbound, outbound: outbound)
        } catch {
            await fanOut.unsubscribe(tab)
            throw error
        }
        await fanOut.unsubscribe(tab)
    }

    private func forward(
        _ tab: EventFanOut.Tab, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async throws {
        // Each task says whether its end is the socket's.
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                // The queue ends when the tab fell behind (after what it held) or the node stopped.
                for await line in tab.lines { try await outbound.write(.text(line)) }
                if tab.fellBehind {
                    try await outbound.close(Self.fellBehind, reason: "fell behind: read the state again")
                }
                return true
            }
            // Nothing is asked over the socket: its end (the tab closed) is what is waited for.
            group.addTask {
                for try await _ in inbound {}
                return true
            }
            while let ended = try await group.next(), !ended {}
            group.cancelAll()
        }
    }
}
