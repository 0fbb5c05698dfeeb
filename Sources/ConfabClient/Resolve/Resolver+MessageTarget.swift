import ConfabModel
import ConfabStore

extension Resolver {
    /// Where `confab send TARGET` writes: a conversation (by id prefix, or a peer's most
    /// recent thread), else a known peer with no thread yet, whose first message starts one.
    /// When the text names neither, the peer error (listing known peers) is the helpful one.
    public func messageTarget(_ text: String) throws -> MessageTarget {
        do {
            return .conversation(try conversation(text))
        } catch is ResolveError {
            return .newConversation(with: try peer(text))
        }
    }

    /// Who a target reaches, for people to read: a title or a peer's name, sanitised (it
    /// came from the network).
    public func displayName(of target: MessageTarget) throws -> String {
        switch target {
        case .conversation(let id):
            return TextSanitizer.line(try store.conversation(id)?.displayName ?? id.shortHex)
        case .newConversation(let peer):
            return TextSanitizer.line(try store.peer(peer)?.name ?? peer.shortHex)
        }
    }
}
