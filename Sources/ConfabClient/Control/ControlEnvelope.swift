import ConfabModel
import Foundation

/// What a control connection asks (Protocol.md §13): an operation, or to watch events,
/// which turns the connection into an event stream rather than asking anything.
public enum ControlRequest: Sendable {
    case operation(any ConfabOperation)
    /// Events from now on, for one conversation or all.
    case watch(ConversationID?)

    public var method: String {
        switch self {
        case .operation(let operation): type(of: operation).method.rawValue
        case .watch: "watch"
        }
    }
}

extension ControlRequest: Equatable {
    public static func == (lhs: ControlRequest, rhs: ControlRequest) -> Bool {
        switch (lhs, rhs) {
        case (.operation(let left), .operation(let right)): left.isEqual(to: right)
        case (.watch(let left), .watch(let right)): left == right
        default: false
        }
    }
}

/// A request line: the protocol version, the caller's id for the answer, the request. On
/// the wire a JSON object per line, `{"v": 1, "id": 7, "method": "send", "params": {…}}`;
/// ids travel as hex and are decoded here, once, into typed values.
public struct ControlEnvelope: Sendable, Equatable {
    /// The control protocol this build speaks. A request with another version (or none, as
    /// from a confab older than version 1) is answered with an error naming both.
    public static let version = 1

    public var version: Int
    public var id: Int?
    public var request: ControlRequest

    public init(id: Int?, request: ControlRequest, version: Int = ControlEnvelope.version) {
        self.version = version
        self.id = id
        self.request = request
    }

    public init(id: Int?, operation: some ConfabOperation) {
        self.init(id: id, request: .operation(operation))
    }

    /// Why a request line could not be read; the message goes back to the caller.
    public struct Malformed: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }
}

extension ControlEnvelope: Codable {
    private enum Keys: String, CodingKey { case v, id, method, params }
    private enum WatchKeys: String, CodingKey { case conversation }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        id = try container.decodeIfPresent(Int.self, forKey: .id)
        version = try container.decodeIfPresent(Int.self, forKey: .v) ?? 0
        guard version == Self.version else {
            throw Malformed(
                description:
                    "this node speaks control protocol version \(Self.version), the request is version \(version) — use the confab binary that matches the running node"
            )
        }
        let method = try container.decode(String.self, forKey: .method)
        if method == "watch" {
            let params = try? container.nestedContainer(keyedBy: WatchKeys.self, forKey: .params)
            request = .watch(try params?.decodeIfPresent(ConversationID.self, forKey: .conversation))
            return
        }
        guard let known = OperationMethod(rawValue: method) else {
            throw Malformed(description: "unknown method \"\(method)\"")
        }
        request = .operation(
            try Self.namingMissingParams(of: known) { try Self.decode(known.operation, from: container) })
    }

    /// An operation from its method and its params alone, as the web app's routes carry
    /// them (Protocol.md §13.1): refused as the same params in a request line would be.
    /// Empty params are `{}`.
    public static func operation(_ method: OperationMethod, params: Data) throws -> any ConfabOperation {
        try namingMissingParams(of: method) {
            try decodeParams(method.operation, from: params.isEmpty ? Data("{}".utf8) : params)
        }
    }

    private static func decodeParams<Operation: ConfabOperation>(
        _ type: Operation.Type, from params: Data
    ) throws -> Operation {
        try JSONOutput.decoder().decode(Operation.self, from: params)
    }

    /// A param left out is named as the caller wrote it, not as a Swift path.
    private static func namingMissingParams<Value>(
        of method: OperationMethod, _ decode: () throws -> Value
    ) throws -> Value {
        do {
            return try decode()
        } catch DecodingError.keyNotFound(let key, let context) {
            throw Malformed(description: "\(method.rawValue) needs param \(Self.paramPath(context.codingPath + [key]))")
        } catch DecodingError.valueNotFound(_, let context) {
            throw Malformed(description: "\(method.rawValue) needs param \(Self.paramPath(context.codingPath))")
        }
    }

    /// `replyTo.author` for the path `params.replyTo.author`.
    private static func paramPath(_ path: [any CodingKey]) -> String {
        path.map(\.stringValue).drop(while: { $0 == Keys.params.stringValue }).joined(separator: ".")
    }

    /// The params as the operation's own type; a request without params has none to give.
    private static func decode<Operation: ConfabOperation>(
        _ type: Operation.Type, from container: KeyedDecodingContainer<Keys>
    ) throws -> Operation {
        if let operation = try container.decodeIfPresent(Operation.self, forKey: .params) { return operation }
        return try JSONDecoder().decode(Operation.self, from: Data("{}".utf8))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(version, forKey: .v)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(request.method, forKey: .method)
        switch request {
        case .operation(let operation):
            try container.encode(operation, forKey: .params)
        case .watch(let conversation):
            var params = container.nestedContainer(keyedBy: WatchKeys.self, forKey: .params)
            try params.encodeIfPresent(conversation, forKey: .conversation)
        }
    }
}
