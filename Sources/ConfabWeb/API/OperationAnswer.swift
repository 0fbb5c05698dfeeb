import ConfabClient
import Foundation
import Hummingbird

/// The control protocol's answer shape (Protocol.md §13) as an HTTP response.
enum OperationAnswer {
    static func success(_ result: some Codable & Sendable) -> Response {
        json(ControlResponse.success(result, id: nil), status: .ok)
    }

    static func failure(_ error: String, status: HTTPResponse.Status) -> Response {
        json(ControlResponse<ControlEmpty>.failure(error, id: nil), status: status)
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status) -> Response {
        let text = (try? JSONOutput.line(value)) ?? #"{"v":1,"ok":false,"error":"could not encode the answer"}"#
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
