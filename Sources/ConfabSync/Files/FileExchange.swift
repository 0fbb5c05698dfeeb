import ConfabModel
import ConfabStore
import ConfabWire
import Logging

/// The exchange of files' content between nodes (Protocol.md §17.5): which chunks to ask
/// of whom, what to answer, what to take. Like the sync engine it does no network I/O: the
/// node sends what it says and writes the chunks it hands out (`FileOutput.writes`), then
/// reports them written (`written`), and only then do they count as held.
///
/// Not thread-safe: the node owns one and calls it from one isolation domain.
public final class FileExchange {
    public let store: ConfabStore
    public var policy: FileFetchPolicy
    /// Whether a peer should have a conversation (a participant, or a trusted relay): the
    /// sync engine's rule, which also decides who may be served a file.
    public var shares: (ConversationID, NodeID) throws -> Bool = { _, _ in false }
    /// Bytes of chunks asked of one peer and not received yet, at most.
    public var window = 1 << 20
    /// Within the window, a peer is asked for no more than it delivers in this time at the
    /// rate its chunks arrive (one chunk at least): file data and other messages share a
    /// session, and a message sent behind what was asked waits until it has arrived
    /// (Protocol.md §17.5 step 5). Nil: the window alone.
    public var queueDelay: Duration? = .milliseconds(2)
    /// Bytes of checked chunks waiting to be written; beyond it nothing more is asked.
    public var writeBacklogLimit = 8 << 20
    /// Bytes of chunks one FileWant is answered with at most; what it asks beyond goes
    /// unanswered (an asker of this implementation never asks for more than `window`).
    public var maxAnswerBytes = 8 << 20
    /// A request not answered in this time is asked elsewhere.
    public var requestTimeout: Duration = .seconds(30)
    /// Bad chunks from one peer in one session before it is disconnected.
    public var maxBadChunks = 4
    /// How long a key that sent too many bad chunks is asked for nothing.
    public var penalty: Duration = .seconds(600)
    /// How often an interested peer is told of progress at most.
    public var haveInterval: Duration = .milliseconds(250)
    public var now: @Sendable () -> ContinuousClock.Instant = { .now }

    var peers: [NodeID: FilePeerState] = [:]
    var transfers: [FileID: FileTransfer] = [:]
    /// Files not fetched, and why (waiting for acceptance, too large, no room, a full disk).
    var declined: [FileID: String] = [:]
    var writeBacklog = 0
    /// Files held whole, as read once (`record(of:)`).
    var wholeFiles: [FileID: FileRecord] = [:]
    var penalized: [NodeID: ContinuousClock.Instant] = [:]
    private var lastRefresh: ContinuousClock.Instant?
    /// The store's generation at the last refresh (`ConfabStore.generation`).
    private var generationAtRefresh: Int?
    let logger: Logger

    public init(
        store: ConfabStore, policy: FileFetchPolicy = FileFetchPolicy(), logger: Logger = Logger(label: "confab.files")
    ) {
        self.store = store
        self.policy = policy
        self.logger = logger
    }

    // MARK: Sessions

    public func peerConnected(_ peer: NodeID) {
        peers[peer] = FilePeerState()
    }

    /// The peer's Hello arrived: it may be asked and answered from now on.
    public func peerReady(_ peer: NodeID) throws -> FileOutput {
        peers[peer]?.helloReceived = true
        // Whether it is a trusted relay, and so what it may be served, is known from now.
        peers[peer]?.served = [:]
        return try schedule()
    }

    /// What was asked of the peer is asked elsewhere.
    public func peerDisconnected(_ peer: NodeID) throws -> FileOutput {
        guard let state = peers.removeValue(forKey: peer) else { return FileOutput() }
        for (file, chunks) in state.asked {
            for chunk in chunks.keys { transfers[file]?.queue.giveBack(chunk) }
        }
        return try schedule()
    }

    /// Files whose content is being fetched, and how far.
    public var fetching: [FileRecord] { transfers.values.map(\.record) }

    // MARK: Inputs

    /// Handles a file message from a peer; other messages are not the exchange's.
    public func handle(_ message: SessionMessage, from peer: NodeID) throws -> FileOutput {
        guard let state = peers[peer] else { return FileOutput() }
        guard state.helloReceived else {
            var output = FileOutput()
            output.misbehaving[peer] = "file message before hello"
            return output
        }
        switch message {
        case .fileWant(let want):
            return try answer(want, from: peer)
        case .fileManifest(let file, let manifest):
            return try take(manifest: manifest, of: file, from: peer)
        case .fileChunk(let file, let index, let data):
            return try take(chunk: data, index: index, of: file, from: peer)
        case .fileHave(let have):
            return try note(have, from: peer)
        default:
            return FileOutput()
        }
    }

    /// File entries arrived or were written, or the person accepted a file: look for
    /// content to fetch.
    public func refresh() throws -> FileOutput {
        lastRefresh = now()
        generationAtRefresh = store.generation
        let autoLimit = try store.autoDownloadLimit()
        var output = FileOutput()
        for record in try store.incompleteFiles() where transfers[record.id] == nil {
            if let refusal = policy.refusal(record, autoLimit: autoLimit) {
                if declined.updateValue(refusal, forKey: record.id) != refusal, refusal.hasPrefix("it is") {
                    try store.setFileProblem(record.id, "not fetched: \(refusal)")
                    output.progress.insert(record.id)
                }
                continue
            }
            declined[record.id] = nil
            do {
                try store.content.allocate(record.id, layout: record.layout)
            } catch {
                if declined.updateValue(error.description, forKey: record.id) == nil {
                    logger.error("not fetching file \(record.id.shortHex): \(error)")
                    try store.setFileProblem(record.id, error.description)
                    output.progress.insert(record.id)
                }
                continue
            }
            if record.problem != nil {
                try store.setFileProblem(record.id, nil)
                output.progress.insert(record.id)
            }
            transfers[record.id] = FileTransfer(record: record)
        }
        output.merge(try schedule())
        return output
    }

    /// Whether entries stored change what the exchange fetches or serves: a file to fetch, a
    /// file deleted for everyone, or a change of members (who may be served from now on).
    public static func concerns(_ entries: [Entry]) -> Bool {
        entries.contains { [.file, .unsend, .members].contains($0.kind) }
    }

    /// Entries were stored: file entries may name content to fetch. One naming content held
    /// whole already (the same file sent again) has nothing to fetch; its author, if
    /// connected, is told so, so that it knows this recipient holds it.
    public func entriesArrived(_ entries: [Entry]) throws -> FileOutput {
        guard Self.concerns(entries) else { return FileOutput() }
        var any = false
        for peer in peers.keys { peers[peer]?.served = [:] }
        if entries.contains(where: { $0.kind == .unsend }) {
            // A file deleted for everyone is no longer fetched, and its content goes.
            for file in try store.removeOrphanedFiles() {
                transfers[file] = nil
                wholeFiles[file] = nil
                any = true
            }
        }
        for entry in entries {
            guard case .file(let body) = entry.body, entry.author != store.me else { continue }
            any = true
            if peers[entry.author] != nil, try record(of: body.fileID)?.isComplete == true {
                peers[entry.author]?.interested.insert(body.fileID)
                peers[entry.author]?.haveDue.insert(body.fileID)
            }
        }
        return any ? try refresh() : FileOutput()
    }

    /// Chunks handed out in `FileOutput.writes` are on disk and recorded (`record` is what
    /// the store now holds), or could not be written.
    public func written(
        _ file: FileID, chunks: [Int], bytes: Int, result: Result<FileRecord?, ContentStoreError>
    )
        throws -> FileOutput
    {
        writeBacklog -= bytes
        var output = FileOutput()
        guard var transfer = transfers[file] else { return try schedule() }
        transfer.writing.subtract(chunks)
        switch result {
        case .success(let record):
            guard let record else {
                transfers[file] = nil
                return try schedule()
            }
            transfer.record.held = record.held
            output.progress.insert(file)
            if transfer.record.isComplete {
                transfers[file] = nil
                wholeFiles[file] = transfer.record
                logger.info("file \(file.shortHex) complete (\(ByteSize.format(Int(clamping: record.layout.size))))")
            } else {
                transfers[file] = transfer
            }
            tellInterested(file)
        case .failure(let error):
            // Nothing written is lost: what was recorded stays held, and the transfer goes on
            // from there once there is room (the next refresh tries again).
            logger.error("file \(file.shortHex) stopped: \(error)")
            transfers[file] = nil
            declined[file] = error.description
            try store.setFileProblem(file, error.description)
            output.progress.insert(file)
            for peer in peers.keys {
                if let asked = peers[peer]?.asked.removeValue(forKey: file) {
                    peers[peer]?.askedBytes -= asked.keys.reduce(0) { $0 + transfer.record.layout.cipherLength(of: $1) }
                }
                peers[peer]?.askedManifest[file] = nil
            }
        }
        output.merge(try schedule())
        return output
    }

    /// Whether `tick` has anything to do before the next look for files: transfers under
    /// way, requests awaiting answers, progress owed, peers penalised. While it has not,
    /// the node's housekeeping may sleep longer between ticks.
    public var hasTimers: Bool {
        !transfers.isEmpty || !penalized.isEmpty || writeBacklog > 0
            || peers.values.contains { !$0.asked.isEmpty || !$0.askedManifest.isEmpty || !$0.haveDue.isEmpty }
    }

    /// A look for files to fetch every few seconds while the store changes (a file entry
    /// another process wrote, a limit raised), and once a minute while it does not, for
    /// what a failure left (a disk that had no room may have some now). Reading the store
    /// every few seconds regardless was a twentieth of an idle node's CPU.
    private func isRefreshDue(at instant: ContinuousClock.Instant) -> Bool {
        guard let lastRefresh else { return true }
        let since = instant - lastRefresh
        return since > Self.refreshInterval
            && (store.generation != generationAtRefresh || since > Self.idleRefreshInterval)
    }

    static let refreshInterval: Duration = .seconds(5)
    static let idleRefreshInterval: Duration = .seconds(60)

    /// Timers: requests that went unanswered, progress owed to interested peers, and a
    /// look for files to fetch every few seconds.
    public func tick() throws -> FileOutput {
        var output = FileOutput()
        let instant = now()
        for peer in peers.keys {
            guard var state = peers[peer] else { continue }
            for (file, chunks) in state.asked {
                for (chunk, at) in chunks where instant - at > requestTimeout {
                    state.asked[file]?[chunk] = nil
                    if let layout = transfers[file]?.record.layout {
                        state.askedBytes -= layout.cipherLength(of: chunk)
                    }
                    transfers[file]?.queue.giveBack(chunk)
                    // A peer that does not answer is not asked for that file again here.
                    state.holdings[file] = .init(manifest: state.holdings[file]?.manifest ?? false, chunks: nil)
                }
                if state.asked[file]?.isEmpty == true { state.asked[file] = nil }
            }
            for (file, at) in state.askedManifest where instant - at > requestTimeout {
                state.askedManifest[file] = nil
                state.holdings[file] = .init(manifest: false, chunks: nil)
            }
            peers[peer] = state
        }
        for (peer, until) in penalized where until < instant { penalized[peer] = nil }
        output.merge(try sendDueHaves())
        if isRefreshDue(at: instant) {
            output.merge(try refresh())
        } else {
            output.merge(try schedule())
        }
        return output
    }
}
