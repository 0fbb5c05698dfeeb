import Foundation

/// The answer to one request: `{"v": 1, "id": 7, "ok": true, "result": …}` or
/// `{"v": 1, "id": 7, "ok": false, "error": "what happened and what to do"}`.
public struct ControlResponse<Result: Codable & Sendable>: Codable, Sendable {
    public var v: Int
    public var id: Int?
    public var ok: Bool
    public var result: Result?
    public var error: String?

    public static func success(_ result: Result, id: Int?) -> Self {
        Self(v: ControlEnvelope.version, id: id, ok: true, result: result, error: nil)
    }

    public static func failure(_ error: String, id: Int?) -> Self {
        Self(v: ControlEnvelope.version, id: id, ok: false, result: nil, error: error)
    }
}
