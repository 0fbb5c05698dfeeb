import ConfabClient
import ConfabModel
import Foundation
import Hummingbird

/// `POST /api/v1/upload?conversation=ID&name=NAME[&folder=PATH]` with the file's bytes as
/// the body: the browser's side of `send_file`. The bytes go to a folder of their own in the
/// data directory (mode 0700, the file 0600) under the sanitised name, the node encrypts them
/// into its store as it does a file sent by path, and the copy goes. The answer is
/// `send_file`'s.
struct UploadRoutes<Context: RequestContext>: Sendable {
    let messenger: LocalMessenger

    func add(to router: Router<Context>) {
        router.post("/api/v1/upload") { request, _ in try await upload(request) }
    }

    private func upload(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        guard let conversation = query["conversation"].flatMap({ ConversationID(hex: String($0)) }) else {
            throw WebRefusal.badRequest("upload needs param conversation (32 hex digits)")
        }
        let name = SafeFileName.component(query["name"].map(String.init) ?? "")
        guard !name.isEmpty else { throw WebRefusal.badRequest("upload needs param name (the file's name)") }
        let folder = SafeFileName.folder(query["folder"].map(String.init) ?? "").joined(separator: "/")
        let limit = messenger.node?.maxFileSize ?? LocalMessenger.defaultMaxFileSize
        if let length = request.headers[.contentLength].flatMap(UInt64.init), length > limit {
            throw WebRefusal.tooLarge("the file is larger than this node sends (\(limit) bytes)")
        }
        let staging = messenger.local.directory.url.appendingPathComponent("uploads")
            .appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(
            at: staging, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: staging) }
        let path = staging.appendingPathComponent(name).path
        try await receive(request.body, to: path, limit: limit)
        let operation = Operations.SendFile(path: path, folder: folder, to: .conversation(conversation))
        do {
            return OperationAnswer.success(try await messenger.perform(operation))
        } catch {
            return OperationAnswer.failure("\(error)", status: .unprocessableContent)
        }
    }

    /// The body written as it arrives, never more than `limit` bytes.
    private func receive(_ body: RequestBody, to path: String, limit: UInt64) async throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw WebRefusal.conflict("could not stage the upload in the data directory") }
        defer { try? handle.close() }
        var written: UInt64 = 0
        for try await buffer in body {
            written += UInt64(buffer.readableBytes)
            guard written <= limit else {
                throw WebRefusal.tooLarge("the file is larger than this node sends (\(limit) bytes)")
            }
            try handle.write(contentsOf: buffer.readableBytesView)
        }
    }
}
