import ConfabModel
import ConfabStore

extension Operations {
    /// The running node's address, sessions and outbox.
    public struct Status: ConfabOperation {
        public typealias Answer = NodeStatus
        public static let method = OperationMethod.status

        public init() {}

        public func perform(on messenger: some Messenger) async throws -> NodeStatus {
            try await messenger.perform(self)
        }
    }

    /// Another process wrote to this conversation through the store: offer it now.
    public struct Changed: ConfabOperation {
        public typealias Answer = ControlEmpty
        public static let method = OperationMethod.changed
        public var conversation: ConversationID

        public init(_ conversation: ConversationID) { self.conversation = conversation }

        public func perform(on messenger: some Messenger) async throws -> ControlEmpty {
            try await messenger.perform(self)
        }
    }

    /// My person is typing in this conversation (`value`), or stopped: the node tells the
    /// participants online, paced (Protocol.md §10.2).
    public struct Typing: ConfabOperation {
        public typealias Answer = ControlEmpty
        public static let method = OperationMethod.typing
        public var conversation: ConversationID
        public var value: Bool

        public init(_ conversation: ConversationID, active: Bool) {
            self.conversation = conversation
            value = active
        }

        public func perform(on messenger: some Messenger) async throws -> ControlEmpty {
            try await messenger.perform(self)
        }
    }

    /// Re-announces clocks to every peer and redials known peers now.
    public struct Resync: ConfabOperation {
        public typealias Answer = ControlEmpty
        public static let method = OperationMethod.resync

        public init() {}

        public func perform(on messenger: some Messenger) async throws -> ControlEmpty {
            try await messenger.perform(self)
        }
    }

    /// `confab doctor` run by the node itself, with the options it runs with: its beacons,
    /// ports, known peers probed, and what each finding means. Takes `seconds` of listening.
    public struct Doctor: ConfabOperation {
        public typealias Answer = DoctorSummary
        public static let method = OperationMethod.doctor
        public static let allowedSeconds = 1.0...10.0
        public var seconds: Double

        public init(seconds: Double = 3) { self.seconds = seconds }

        public func perform(on messenger: some Messenger) async throws -> DoctorSummary {
            try await messenger.perform(self)
        }

        /// Refuses a listening time outside 1 to 10 seconds (also when built in Swift).
        public func validated() throws -> Self {
            guard Self.allowedSeconds.contains(seconds) else {
                throw ControlEnvelope.Malformed(description: "doctor's param seconds is 1 to 10")
            }
            return self
        }

        private enum CodingKeys: String, CodingKey { case seconds }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            seconds = try container.decodeIfPresent(Double.self, forKey: .seconds) ?? 3
            _ = try validated()
        }
    }
}

/// What `doctor` found, in words: each finding as `confab doctor --json` gives it, and
/// whether any peer was heard, connected or answered.
public struct DoctorSummary: Sendable, Equatable, Codable {
    public struct Finding: Sendable, Equatable, Codable {
        /// A stable code (`no-beacons-heard`, `peer-connected`, …).
        public let code: String
        /// `ok`, `info`, `warning` or `problem`.
        public let severity: String
        public let message: String
        /// What to try; none for a finding that needs nothing done.
        public let advice: [String]

        public init(code: String, severity: String, message: String, advice: [String]) {
            self.code = code
            self.severity = severity
            self.message = message
            self.advice = advice
        }
    }

    public let ok: Bool
    public let findings: [Finding]
    /// The network key's tag this node beacons with (16 hex characters).
    public let networkTag: String
    public let elapsed: Double

    public init(ok: Bool, findings: [Finding], networkTag: String, elapsed: Double) {
        self.ok = ok
        self.findings = findings
        self.networkTag = networkTag
        self.elapsed = elapsed
    }
}
