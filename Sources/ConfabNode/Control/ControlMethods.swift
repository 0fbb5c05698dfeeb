import ConfabModel
import ConfabStore
import Foundation
import NIOCore

/// The control socket's methods, each a thin call into the node.
enum ControlMethods {
    static func handle(_ request: ControlProtocol.Request, node: Node, channel: any Channel) async {
        let params = request.params ?? [:]
        do {
            switch request.method {
            case "status":
                reply(request, try await node.status(), channel)
            case "peers":
                reply(request, await node.peers(), channel)
            case "send":
                guard let target = params["target"], let text = params["text"] else {
                    throw NodeError.control("send needs params target and text")
                }
                reply(request, try await node.send(text, to: target), channel)
            case "notify":
                guard let conversation = params["conversation"].flatMap(ConversationID.init(hex:)) else {
                    throw NodeError.control("notify needs param conversation (32 hex characters)")
                }
                try await node.changed(conversation)
                reply(request, ControlProtocol.Empty(), channel)
            case "trust":
                // The store already holds the change; the param only has to be well formed.
                if let peer = params["peer"], NodeID(hex: peer) == nil {
                    throw NodeError.control("trust: param peer must be a key (64 hex characters)")
                }
                try await node.trustChanged()
                reply(request, ControlProtocol.Empty(), channel)
            case "resync":
                try await node.resync()
                reply(request, ControlProtocol.Empty(), channel)
            case "watch":
                let conversation = params["conversation"].flatMap(ConversationID.init(hex:))
                let events = await node.events()
                reply(request, ControlProtocol.Empty(), channel)
                for await event in events {
                    guard channel.isActive else { break }
                    if let conversation, !event.concerns(conversation) { continue }
                    ControlHandler.write(ControlProtocol.event(event), to: channel)
                }
            default:
                throw NodeError.control("unknown method \"\(request.method)\"")
            }
        } catch {
            ControlHandler.write(
                ControlProtocol.Response<ControlProtocol.Empty>(id: request.id, ok: false, error: "\(error)"),
                to: channel)
        }
    }

    private static func reply<R: Codable & Sendable>(
        _ request: ControlProtocol.Request, _ result: R, _ channel: any Channel
    ) {
        ControlHandler.write(ControlProtocol.Response(id: request.id, ok: true, result: result), to: channel)
    }
}

extension NodeEvent {
    func concerns(_ conversation: ConversationID) -> Bool {
        switch self {
        case .message(let message): return message.conversationID == conversation
        case .status(let id, _, _): return id == conversation
        case .peerOnline, .peerOffline: return true
        }
    }
}

extension Node {
    /// A CLI command wrote to this conversation through the store: offer it now rather than
    /// at the next store poll.
    public func changed(_ conversation: ConversationID) throws {
        apply(try engine.offer([conversation]))
    }

    /// Sends through the node so the message leaves at once.
    public func send(_ text: String, to target: String) throws -> ControlProtocol.Sent {
        var sender = try MessageSender(store: local.store, target: target)
        let sent = try sender.send(text)
        try didWrite([sent.entry])
        return ControlProtocol.Sent(
            conversation: sent.entry.conversationID.hex, seq: sent.entry.seq, status: DeliveryStatus.sending.rawValue,
            created: sent.created)
    }
}
