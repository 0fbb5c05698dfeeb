import ConfabModel
import ConfabSync
import ConfabWire

/// What crossed the links and what the engines stored, counted from the engines' outputs
/// and the messages they asked to send.
public struct SimulationTally: Sendable {
    /// Session messages sent, and their encoded bytes (before framing and box-stream), by
    /// kind ("hello", "clocks", "entries", …: whatever kinds the engine sends).
    public var messages: [String: Int] = [:]
    public var bytes: [String: Int] = [:]
    /// Entries written by their author here, by kind (messages by the writers, receipts by
    /// the engines).
    public var written: [String: Int] = [:]
    /// Entries stored on a node that is not their author, by kind: one per node per entry
    /// when everyone holds everything.
    public var delivered: [String: Int] = [:]
    /// Entries that came in Entries messages, those already held, and their bytes.
    public var entriesReceived = 0
    public var duplicatesReceived = 0
    public var entryBytesReceived = 0
    /// When an entry was last stored anywhere, and a message (not a receipt).
    public var lastDelivery: Duration?
    public var lastMessageDelivery: Duration?
    /// Sessions a node closed because its peer misbehaved: none, between honest engines.
    public var misbehavior: [String] = []

    public var messageCount: Int { messages.values.reduce(0, +) }
    public var byteCount: Int { bytes.values.reduce(0, +) }
    public var deliveredCount: Int { delivered.values.reduce(0, +) }
    public var writtenCount: Int { written.values.reduce(0, +) }

    mutating func sent(_ message: SessionMessage, encoded: Int) {
        let kind = Self.kind(of: message)
        messages[kind, default: 0] += 1
        bytes[kind, default: 0] += encoded
    }

    /// An engine's output on the node `me`, at `time`.
    mutating func absorb(_ output: SyncOutput, me: NodeID, at time: Duration) {
        for entry in output.appended {
            let kind = "\(entry.kind)"
            if entry.author == me {
                written[kind, default: 0] += 1
            } else {
                delivered[kind, default: 0] += 1
                lastDelivery = time
                if entry.kind == .message { lastMessageDelivery = time }
            }
        }
        entriesReceived += output.entriesReceived
        duplicatesReceived += output.duplicatesReceived
        entryBytesReceived += output.entryBytesReceived
    }

    /// The message's case name, read by reflection so that kinds added to the protocol are
    /// counted without a change here.
    static func kind(of message: SessionMessage) -> String {
        Mirror(reflecting: message).children.first?.label ?? "\(message)"
    }
}
