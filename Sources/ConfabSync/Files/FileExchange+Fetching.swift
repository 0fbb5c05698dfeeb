import ConfabModel
import ConfabStore
import ConfabWire

extension FileExchange {
    /// Asks every ready peer for what it may hold of the files being fetched, within its
    /// window, while the writer keeps up (Protocol.md §17.5 step 1).
    func schedule() throws -> FileOutput {
        var output = FileOutput()
        guard !transfers.isEmpty else { return output }
        let instant = now()
        for peer in peers.keys.sorted() {
            guard peers[peer]?.helloReceived == true, penalized[peer].map({ $0 < instant }) ?? true else { continue }
            for file in transfers.keys.sorted() {
                guard try serves(file, to: peer) else { continue }
                if let want = nextWant(file, from: peer, at: instant) {
                    peers[peer]?.interested.insert(file)
                    output.send(.fileWant(want), to: peer)
                }
            }
        }
        output.merge(try sendDueHaves())
        return output
    }

    /// What to ask one peer for of one file now, if anything.
    private func nextWant(
        _ file: FileID, from peer: NodeID, at instant: ContinuousClock.Instant
    )
        -> SessionMessage.FileWant?
    {
        guard var transfer = transfers[file], var state = peers[peer] else { return nil }
        defer {
            transfers[file] = transfer
            peers[peer] = state
        }
        guard transfer.hasManifest else {
            // One peer at a time is asked for the manifest.
            let askedSomewhere = peers.values.contains { $0.askedManifest[file] != nil }
            guard !askedSomewhere, state.mayHoldManifest(file) else { return nil }
            state.askedManifest[file] = instant
            return .init(file: file, manifest: true)
        }
        var chunks: [Int] = []
        let layout = transfer.record.layout
        if state.askedBytes == 0 { state.arrivals.idle() }
        let chunkLength = layout.cipherLength(of: 0)
        let budget = queueDelay.map { state.arrivals.budget(delay: $0, chunk: chunkLength) } ?? window
        while state.askedBytes < window, state.askedBytes == 0 || state.askedBytes + chunkLength <= budget,
            writeBacklog < writeBacklogLimit,
            let chunk = transfer.queue.next(where: { state.mayHold(file, chunk: $0) })
        {
            chunks.append(chunk)
            state.asked[file, default: [:]][chunk] = instant
            state.askedBytes += layout.cipherLength(of: chunk)
            if chunks.count == SessionCodec.maxChunksPerWant { break }
        }
        if !chunks.isEmpty { state.arrivals.asked(at: instant) }
        return chunks.isEmpty ? nil : .init(file: file, chunks: chunks)
    }

    /// A manifest that was asked for: taken if it checks against the file id.
    func take(manifest: [UInt8], of file: FileID, from peer: NodeID) throws -> FileOutput {
        guard peers[peer]?.askedManifest.removeValue(forKey: file) != nil, var transfer = transfers[file] else {
            return FileOutput()
        }
        let layout = transfer.record.layout
        guard manifest.count == layout.manifestLength, FileCipher.fileID(layout: layout, manifest: manifest) == file
        else {
            peers[peer]?.holdings[file] = .init(manifest: false, chunks: nil)
            return try bad("a manifest that does not match file \(file.shortHex)", from: peer)
        }
        guard let record = try store.recordManifest(file, manifest: manifest) else { return FileOutput() }
        transfer.record = record
        transfer.queue = ChunkQueue(record.held.missing)
        var output = FileOutput()
        output.progress.insert(file)
        if record.isComplete {
            transfers[file] = nil
        } else {
            transfers[file] = transfer
        }
        tellInterested(file)
        output.merge(try schedule())
        return output
    }

    /// A chunk that was asked for: checked against its name in the manifest before
    /// anything of it is written (§17.5 step 3).
    func take(chunk data: [UInt8], index: Int, of file: FileID, from peer: NodeID) throws -> FileOutput {
        guard peers[peer]?.asked[file]?.removeValue(forKey: index) != nil, var transfer = transfers[file],
            let manifest = transfer.record.manifest
        else { return FileOutput() }
        let layout = transfer.record.layout
        peers[peer]?.askedBytes -= layout.cipherLength(of: index)
        if let more = peers[peer].map({ $0.askedBytes > 0 }) {
            peers[peer]?.arrivals.arrived(data.count, at: now(), more: more)
        }
        guard index < layout.chunkCount, data.count == layout.cipherLength(of: index),
            FileCipher.chunkName(data) == Array(FileCipher.chunkName(in: manifest, index: index))
        else {
            transfer.queue.giveBack(index)
            transfers[file] = transfer
            // What it said it holds is not believed for this file any more.
            peers[peer]?.holdings[file] = .init(manifest: true, chunks: ChunkSet(count: layout.chunkCount))
            return try bad("chunk \(index) of file \(file.shortHex) does not match its name", from: peer)
        }
        transfer.writing.insert(index)
        transfers[file] = transfer
        writeBacklog += data.count
        var output = FileOutput()
        output.writes.append(.init(file: file, layout: layout, index: index, data: data))
        output.merge(try schedule())
        return output
    }

    /// What a peer holds of a file: a hint of where to ask. Chunks asked of it that it says
    /// it does not hold are asked elsewhere.
    func note(_ have: SessionMessage.FileHave, from peer: NodeID) throws -> FileOutput {
        guard var state = peers[peer] else { return FileOutput() }
        let file = have.file
        var output = FileOutput()
        let record = try transfers[file]?.record ?? record(of: file)
        guard let record else { return output }
        let chunks = ChunkSet(count: record.layout.chunkCount, bitmap: have.chunks)
        state.holdings[file] = .init(manifest: have.manifest, chunks: chunks)
        if !have.manifest { state.askedManifest[file] = nil }
        for chunk in (state.asked[file] ?? [:]).keys where !chunks.contains(chunk) {
            state.asked[file]?[chunk] = nil
            state.askedBytes -= record.layout.cipherLength(of: chunk)
            transfers[file]?.queue.giveBack(chunk)
        }
        peers[peer] = state
        if record.isComplete {
            output.peerProgress.append(
                .init(
                    peer: peer, file: file,
                    heldBytes: record.layout.plainBytes(held: chunks), complete: have.manifest && chunks.isComplete))
        }
        output.merge(try schedule())
        return output
    }

    /// A chunk or manifest that failed its check: counted against the peer, which is
    /// disconnected, and asked for nothing for a while, once it has sent too many.
    private func bad(_ what: String, from peer: NodeID) throws -> FileOutput {
        var output = FileOutput()
        output.badChunks[peer] = 1
        peers[peer]?.badChunks += 1
        logger.warning("\(peer.shortHex) sent \(what)")
        if (peers[peer]?.badChunks ?? 0) >= maxBadChunks {
            penalized[peer] = now() + penalty
            output.misbehaving[peer] = "sent \(maxBadChunks) chunks that do not match their names"
            // Nothing more is taken from it, even what is already on its way: whatever it
            // was asked for goes back to be asked of others.
            for (file, chunks) in peers[peer]?.asked ?? [:] {
                for index in chunks.keys { transfers[file]?.queue.giveBack(index) }
            }
            peers[peer]?.asked = [:]
            peers[peer]?.askedBytes = 0
            peers[peer]?.askedManifest = [:]
        }
        output.merge(try schedule())
        return output
    }
}
