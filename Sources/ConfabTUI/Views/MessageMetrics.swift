import ConfabModel
import Foundation

/// Remembered bubble heights and days of messages, so scrolling a long chat does not wrap
/// every message again on each key. Only a speed-up: whatever is missing, or was measured
/// for another width, grouping or calendar, is computed on the spot.
struct MessageMetrics: Sendable {
    struct Parameters: Equatable, Sendable {
        let width: Int
        let isGroup: Bool
        let calendar: Calendar
    }

    /// A message within one conversation: cheaper to hash than its text id.
    struct MessageKey: Hashable, Sendable {
        let author: NodeID
        let seq: UInt64

        init(_ message: ChatMessage) {
            author = message.author
            seq = message.seq
        }
    }

    private(set) var parameters: Parameters?
    private var heights: [MessageKey: Int] = [:]
    private var days: [MessageKey: Date] = [:]

    /// Measures what is not measured yet for `parameters` (and forgets measurements made
    /// for other ones).
    mutating func update(_ messages: [ChatMessage], for parameters: Parameters) {
        if self.parameters != parameters {
            self.parameters = parameters
            heights = [:]
            days = [:]
        }
        for message in messages {
            let key = MessageKey(message)
            if heights[key] == nil {
                heights[key] = Self.height(of: message, parameters)
                days[key] = parameters.calendar.startOfDay(for: message.sentAt)
            }
        }
    }

    /// Forgets one message, when a newer copy of it replaces the one measured.
    mutating func forget(_ message: ChatMessage) {
        heights[MessageKey(message)] = nil
        days[MessageKey(message)] = nil
    }

    /// A view of the metrics for `parameters`: remembered values if they were measured
    /// for the same ones, else nothing remembered.
    func lookup(for parameters: Parameters) -> Lookup {
        Lookup(
            parameters: parameters, heights: self.parameters == parameters ? heights : [:],
            days: self.parameters == parameters ? days : [:])
    }

    struct Lookup {
        let parameters: Parameters
        let heights: [MessageKey: Int]
        let days: [MessageKey: Date]

        func height(of message: ChatMessage) -> Int {
            heights[MessageKey(message)] ?? MessageMetrics.height(of: message, parameters)
        }

        func day(of message: ChatMessage) -> Date {
            days[MessageKey(message)] ?? parameters.calendar.startOfDay(for: message.sentAt)
        }
    }

    static func height(of message: ChatMessage, _ parameters: Parameters) -> Int {
        MessageBubble.height(of: message, width: parameters.width, showsAuthor: parameters.isGroup)
    }
}
