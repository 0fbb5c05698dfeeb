import ConfabClient
import ConfabModel
import ConfabStore
import Hummingbird

/// `GET /api/v1/files/<fileID>`: a file this node holds whole, from a conversation it is in,
/// streamed as its chunks are opened. A PNG, JPEG, GIF or WebP (by its own first bytes) is
/// served to be shown inline; anything else only as a download under its sanitised name.
struct FileRoutes<Context: RequestContext>: Sendable {
    let messenger: LocalMessenger

    func add(to router: Router<Context>) {
        router.get("/api/v1/files/:file") { _, context in
            try await download(context.parameters.get("file") ?? "")
        }
    }

    private func download(_ hex: String) async throws -> Response {
        guard let id = FileID(hex: hex) else { throw WebRefusal.badRequest("a file id is 64 hex digits") }
        let store = messenger.local.store
        guard let info = try store.files(withID: id).first(where: { $0.name != nil }) else {
            throw WebRefusal.notFound("no file \(id.shortHex) is held here")
        }
        guard info.heldBytes >= info.size else {
            throw WebRefusal.conflict("file \(info.shortID) is not here yet: accept it, or wait for it to arrive")
        }
        let reader: HeldFileReader
        do {
            reader = try store.openHeldFile(info)
        } catch {
            throw WebRefusal.conflict("\(error)")
        }
        let first = try await Blocking.run { try reader.nextChunk() } ?? []
        let inline = InlineImage.mediaType(of: first)
        var headers = HTTPFields()
        headers[.contentType] = inline ?? "application/octet-stream"
        headers[.contentDisposition] = DownloadName.disposition(reader.name, inline: inline != nil)
        headers[.cacheControl] = "private, no-cache"
        let body = ResponseBody(contentLength: Int(reader.size)) { writer in
            try await writer.write(ByteBuffer(bytes: first))
            while let chunk = try await Blocking.run({ try reader.nextChunk() }) {
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            // A file whose whole does not match its hash ends without its last bytes: the
            // browser reports a failed download rather than keep a damaged file.
            try reader.finish()
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
