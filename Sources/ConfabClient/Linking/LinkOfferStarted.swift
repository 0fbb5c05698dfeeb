import ConfabModel
import Foundation

/// The answer of `link_offer` (Protocol.md §13): what a front end shows the person so the
/// new machine can be given the code.
public struct LinkOfferStarted: Codable, Sendable, Equatable {
    /// Names this offer in `link_confirm`, `link_cancel` and its `link` events.
    public var id: String
    public var code: String
    /// When the offer ends if nobody links.
    public var expiresAt: Date
    /// `HOST:PORT` where the offer listens, for `--peer` on the new machine.
    public var peer: String
    /// What the new machine runs: `confab init --link CODE --peer HOST:PORT`.
    public var command: String
    /// The QR code of `command`: one string per row, top first, "1" a dark module.
    public var qr: [String]

    public init(id: String, code: String, expiresAt: Date, peer: String, command: String, qr: [String]) {
        self.id = id
        self.code = code
        self.expiresAt = expiresAt
        self.peer = peer
        self.command = command
        self.qr = qr
    }
}

/// How a node's link offer moves on, as `link` events on `watch` tell it (Protocol.md §13).
public struct LinkProgress: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable {
        /// A new machine connected with the right code: both sides show `words`.
        case words
        /// The new machine is one of my devices now.
        case linked
        /// Nothing was linked: `message` says why (a no, expiry, wrong codes, an error).
        case failed
    }

    public var id: String
    public var state: State
    /// The name the new machine asked for (its person's word: text only).
    public var name: String?
    /// The new machine's key.
    public var device: NodeID?
    public var words: [String]?
    public var message: String?

    public init(
        id: String, state: State, name: String? = nil, device: NodeID? = nil, words: [String]? = nil,
        message: String? = nil
    ) {
        self.id = id
        self.state = state
        self.name = name
        self.device = device
        self.words = words
        self.message = message
    }
}
