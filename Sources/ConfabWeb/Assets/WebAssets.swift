import ConfabCrypto
import Foundation
import Hummingbird

/// The front end's files as the app serves them: decoded once, each with an `ETag` of its
/// contents, so a browser revalidates with `If-None-Match` and gets 304 when nothing changed.
struct WebAssets: Sendable {
    struct Asset: Sendable {
        let type: String
        let body: ByteBuffer
        let etag: String
    }

    let files: [String: Asset]

    init(_ files: [(path: String, type: String, base64: String)] = WebAssetFiles.all) {
        var assets: [String: Asset] = [:]
        for file in files {
            let bytes = Data(base64Encoded: file.base64) ?? Data()
            let etag = "\"" + Hex.encode(Hash.blake2b([UInt8](bytes), length: 16)) + "\""
            assets[file.path] = Asset(type: file.type, body: ByteBuffer(bytes: bytes), etag: etag)
        }
        self.files = assets
    }

    /// `only`: these paths and no others (the first run serves the stylesheet, not the app).
    func add<Context: RequestContext>(to router: Router<Context>, only: Set<String>? = nil) {
        for (path, asset) in files where only?.contains(path) ?? true {
            router.get(RouterPath(path)) { request, _ in Self.response(asset, to: request) }
            if path == "/index.html" {
                router.get("/") { request, _ in Self.response(asset, to: request) }
            }
        }
    }

    private static func response(_ asset: Asset, to request: Request) -> Response {
        var headers = HTTPFields()
        headers[.eTag] = asset.etag
        headers[.cacheControl] = "no-cache"
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) == asset.etag
        }) == true {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.type
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }
}
