import ConfabModel
import ConfabStore
import ConfabWire

extension FileExchange {
    /// Answers a FileWant (Protocol.md §17.5 step 2): what is asked and held, then a
    /// FileHave if anything asked is not held. A file the peer should not have is answered
    /// exactly as one not held, so nobody can probe which files this node holds.
    func answer(_ want: SessionMessage.FileWant, from peer: NodeID) throws -> FileOutput {
        var output = FileOutput()
        let file = want.file
        guard try serves(file, to: peer), let record = try record(of: file) else {
            output.send(.fileHave(.init(file: file, manifest: false, chunks: [])), to: peer)
            return output
        }
        peers[peer]?.interested.insert(file)
        var missing = false
        if want.manifest {
            if let manifest = record.manifest {
                output.send(.fileManifest(file: file, manifest: manifest), to: peer)
            } else {
                missing = true
            }
        }
        var bytes = 0
        for index in want.chunks {
            guard record.manifest != nil, record.held.contains(index) else {
                missing = true
                continue
            }
            bytes += record.layout.cipherLength(of: index)
            guard bytes <= maxAnswerBytes else { break }
            do {
                let data = try store.content.read(file, index: index, layout: record.layout)
                output.send(.fileChunk(file: file, index: index, data: data), to: peer)
            } catch {
                logger.error("could not read chunk \(index) of file \(file.shortHex): \(error)")
                missing = true
            }
        }
        if missing { output.send(have(record), to: peer) }
        return output
    }

    /// What this node holds of a file. A file held whole never changes until it is removed,
    /// so it is read once (a manifest is up to 512 KiB, and every FileWant would read it).
    func record(of file: FileID) throws -> FileRecord? {
        if let whole = wholeFiles[file] { return whole }
        let record = try store.fileRecord(file)
        if let record, record.isComplete { wholeFiles[file] = record }
        return record
    }

    /// Whether a conversation held here names the file and is one the peer should have.
    func serves(_ file: FileID, to peer: NodeID) throws -> Bool {
        if let known = peers[peer]?.served[file] { return known }
        let served = try store.fileConversations(file).contains { try shares($0, peer) }
        // Asked for every chunk: kept, and forgotten when file entries arrive (one naming
        // the file may come later in the session).
        peers[peer]?.served[file] = served
        return served
    }

    func have(_ record: FileRecord) -> SessionMessage {
        .fileHave(.init(file: record.id, manifest: record.manifest != nil, chunks: record.held.trimmedBytes))
    }

    /// This node holds more of a file: every interested peer is told, at most every
    /// `haveInterval` (at once when the file is whole).
    func tellInterested(_ file: FileID) {
        for peer in peers.keys where peers[peer]?.interested.contains(file) == true {
            peers[peer]?.haveDue.insert(file)
        }
    }

    func sendDueHaves(force: Bool = false) throws -> FileOutput {
        var output = FileOutput()
        let instant = now()
        for peer in peers.keys {
            guard let state = peers[peer], !state.haveDue.isEmpty else { continue }
            for file in state.haveDue {
                let record = try transfers[file]?.record ?? record(of: file)
                guard let record else {
                    peers[peer]?.haveDue.remove(file)
                    continue
                }
                let recent = state.haveSentAt[file].map { instant - $0 < haveInterval } ?? false
                guard force || record.isComplete || !recent else { continue }
                peers[peer]?.haveDue.remove(file)
                peers[peer]?.haveSentAt[file] = instant
                output.send(have(record), to: peer)
            }
        }
        return output
    }
}
