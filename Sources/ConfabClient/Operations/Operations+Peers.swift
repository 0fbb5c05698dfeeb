import ConfabModel
import ConfabStore

extension Operations {
    /// Who is known, and who is online now.
    public struct Peers: ConfabOperation {
        public typealias Answer = [PeerPresence]
        public static let method = OperationMethod.peers

        public init() {}

        public func perform(on messenger: some Messenger) async throws -> [PeerPresence] {
            try await messenger.perform(self)
        }
    }

    /// The safety number of this node's key and a peer's (what `confab verify` shows, and
    /// what the peer's side shows too): read aloud or compared side by side to verify a key.
    public struct SafetyNumberWith: ReadOperation {
        public typealias Answer = SafetyNumberAnswer
        public static let method = OperationMethod.safetyNumber
        public var peer: NodeID

        public init(_ peer: NodeID) {
            self.peer = peer
        }

        public func perform(on messenger: some Messenger) async throws -> SafetyNumberAnswer {
            try await messenger.perform(self)
        }
    }

    /// How far this node trusts a peer; a running node closes a newly blocked peer's
    /// session at once and lets an unblocked one back in.
    public struct SetTrust: ConfabOperation {
        public typealias Answer = ControlEmpty
        public static let method = OperationMethod.setTrust
        public var trust: Peer.Trust
        public var peer: NodeID

        public init(_ trust: Peer.Trust, for peer: NodeID) {
            self.trust = trust
            self.peer = peer
        }

        public func perform(on messenger: some Messenger) async throws -> ControlEmpty {
            try await messenger.perform(self)
        }

        private enum CodingKeys: String, CodingKey { case trust, peer }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard let raw = try? container.decode(String.self, forKey: .trust), let trust = Peer.Trust(rawValue: raw)
            else {
                throw ControlEnvelope.Malformed(
                    description: "set_trust needs param trust: unverified, verified or blocked")
            }
            self.trust = trust
            peer = try container.decode(NodeID.self, forKey: .peer)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(trust.rawValue, forKey: .trust)
            try container.encode(peer, forKey: .peer)
        }
    }
}

/// The answer of `safety_number`: the peer, and 12 groups of 5 digits separated by spaces.
public struct SafetyNumberAnswer: Sendable, Equatable, Codable {
    public let peer: NodeID
    public let safetyNumber: String

    public init(peer: NodeID, safetyNumber: String) {
        self.peer = peer
        self.safetyNumber = safetyNumber
    }
}

extension Operations {
    /// Adds a peer by its key under a name of my person's choosing (`confab peers add`), or
    /// renames a known one: a name given by hand is the person's own label, never replaced by
    /// what the key says of itself.
    public struct AddPeer: ConfabOperation {
        public typealias Answer = Peer
        public static let method = OperationMethod.addPeer
        public var peer: NodeID
        public var name: String

        public init(_ peer: NodeID, name: String) {
            self.peer = peer
            self.name = name
        }

        public func perform(on messenger: some Messenger) async throws -> Peer {
            try await messenger.perform(self)
        }

        /// Refuses a key that is no Ed25519 point and a name that is empty or looks like a key,
        /// before anything is written; the store refuses a name another key has here.
        public func validated() throws -> Self {
            guard (try? peer.signingKey.curve25519()) != nil else {
                throw ControlEnvelope.Malformed(
                    description: "add_peer's param peer is not a valid Confab key; check it for typos")
            }
            guard !DisplayName.cleaned(name).isEmpty, name.utf8.count <= Limits.maxNameBytes else {
                throw ControlEnvelope.Malformed(
                    description: "add_peer's param name needs 1 to \(Limits.maxNameBytes) bytes")
            }
            if let refusal = DisplayName.keyLikeRefusal(name) { throw ControlEnvelope.Malformed(description: refusal) }
            return self
        }

        private enum CodingKeys: String, CodingKey { case peer, name }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            peer = try container.decode(NodeID.self, forKey: .peer)
            name = try container.decode(String.self, forKey: .name)
            _ = try validated()
        }
    }

    /// Changes the name my person goes by. Peers learn it from the `Hello` of their next
    /// session with this node, and a running node reopens its sessions at once for that
    /// (Protocol.md §12 step 1).
    public struct SetName: ConfabOperation {
        public typealias Answer = NameAnswer
        public static let method = OperationMethod.setName
        public var name: String

        public init(_ name: String) { self.name = name }

        public func perform(on messenger: some Messenger) async throws -> NameAnswer {
            try await messenger.perform(self)
        }
    }
}

/// The answer of `set_name`: the name as stored (trimmed, without control characters).
public struct NameAnswer: Sendable, Equatable, Codable {
    public let name: String

    public init(name: String) { self.name = name }
}
