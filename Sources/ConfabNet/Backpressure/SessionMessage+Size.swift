import ConfabWire

extension SessionMessage {
    /// About how many bytes the message takes, on the wire and once decoded, for limits that
    /// count bytes held. Only the parts a peer can make large are counted exactly; the rest
    /// is a fixed allowance, so the estimate costs no encoding.
    var approximateBytes: Int {
        switch self {
        case .entries(let entries):
            return entries.reduce(16) { $0 + $1.count + 16 }
        case .clocks(let clocks), .request(let clocks):
            // A conversation id and a dictionary per item; a key and a seq per author.
            return clocks.reduce(16) { $0 + 64 + $1.clock.width * 48 }
        case .deviceList(_, let entries):
            return entries.reduce(64) { $0 + $1.count + 16 }
        case .forkProof(let first, let second):
            return 16 + first.count + second.count
        case .hello(let hello):
            return 64 + hello.displayName.utf8.count + hello.features.reduce(0) { $0 + 16 + $1.utf8.count }
        case .bye(let reason):
            return 16 + reason.rawValue.utf8.count
        case .want, .typing:
            return 64
        case .rooms(let names):
            return 16 + names.count * 48
        case .prune(let rooms):
            return 16 + rooms.count * 32
        case .fileWant(let want):
            return 64 + want.chunks.count * 8
        case .fileManifest(_, let manifest):
            return 64 + manifest.count
        case .fileChunk(_, _, let data):
            return 64 + data.count
        case .fileHave(let have):
            return 64 + have.chunks.count
        case .ping, .pong:
            return 16
        }
    }
}
