import ConfabClient
import ConfabModel
import ConfabNet
import ConfabStore
import ConfabSync
import ConfabWire

extension Node {
    /// How this node fetches files: its options, and for a relay its quota.
    static func fileExchange(store: ConfabStore, options: NodeOptions, policy relay: RelayPolicy?) -> FileExchange {
        var policy = FileFetchPolicy()
        policy.maxFileSize = options.maxFileSize
        if options.role == .relay {
            policy.fetchesUnreadable = true
            policy.usesAutoDownloadLimit = false
            if let relay { policy.hasRoom = { relay.reserveFile($0) } }
        }
        return FileExchange(store: store, policy: policy, logger: options.logger)
    }

    /// Sends what the file exchange decided, hands checked chunks to the writer, and tells
    /// watchers how files move.
    func applyFiles(_ output: FileOutput) {
        for (peer, messages) in output.sends {
            sessions.session(with: peer)?.send(messages)
        }
        writer.submit(output.writes)
        for (peer, reason) in output.misbehaving {
            logger.warning("closing session with \(peer.shortHex): \(reason)")
            sessions.session(with: peer)?.close(reason: .protocolViolation)
        }
        for (_, count) in output.badChunks { operations.metrics.badChunks.increment(by: Int64(count)) }
        publishFiles(output)
    }

    /// Progress at most every 250 ms per file (always when a file is complete or stopped),
    /// and each recipient that holds a file of mine whole.
    private func publishFiles(_ output: FileOutput) {
        guard hub.hasWatchers else { return }
        let now = ContinuousClock.now
        for file in output.progress {
            let infos = (try? local.store.files(withID: file)) ?? []
            let final = infos.contains { $0.state != .fetching }
            if !final, let last = fileEventAt[file], now - last < .milliseconds(250) { continue }
            fileEventAt[file] = now
            for info in infos { hub.emit(.file(info)) }
        }
        for progress in output.peerProgress {
            let key = "\(progress.file.hex)/\(progress.peer.hex)"
            if !progress.complete, let last = filePeerEventAt[key], now - last < .milliseconds(250) { continue }
            filePeerEventAt[key] = progress.complete ? nil : now
            for info in (try? local.store.files(withID: progress.file)) ?? [] where info.author == me {
                guard (try? local.store.participants(of: info.conversationID).contains(progress.peer)) == true else {
                    continue
                }
                hub.emit(
                    .filePeer(
                        conversation: info.conversationID, seq: info.seq, peer: progress.peer,
                        held: progress.heldBytes, complete: progress.complete))
            }
        }
    }

    /// The person accepted a file (or the store changed): look for content to fetch.
    public func refreshFiles() throws {
        applyFiles(try files.refresh())
    }
}
