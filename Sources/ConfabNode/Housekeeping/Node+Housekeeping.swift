import ConfabClient
import ConfabModel
import Foundation

/// What each of the node's timed duties does (`Housekeeping` says when).
extension Node {
    func housekeeping() async {
        var schedule = Housekeeping()
        while !Task.isCancelled {
            try? await Task.sleep(for: Housekeeping.tick)
            for duty in schedule.next() { perform(duty) }
        }
    }

    private func perform(_ duty: Housekeeping.Duty) {
        switch duty {
        case .engineTimers:
            do { apply(try engine.tick()) } catch { logger.error("could not write a delivered receipt: \(error)") }
        case .fileTimers:
            do { applyFiles(try files.tick()) } catch { logger.error("file exchange: \(error)") }
        case .syncReceived:
            do { try local.store.syncReceived() } catch { logger.error("could not sync the store: \(error)") }
        case .checkpoint:
            // On the store's own thread, so no message's latency pays for it.
            local.store.checkpointIfIdle()
        case .chosenPeers:
            refreshChosenPeers()
        case .externalWrites:
            // Another process (a CLI command while no node ran, the attached chat) committed:
            // peers hear of the entries of mine it wrote, and only of those.
            noticeExternalWrites()
        case .presence:
            let now = Date()
            if presence.changes(at: now) {
                let known = Dictionary(((try? local.store.peers()) ?? []).map { ($0.id, $0) }) { first, _ in first }
                for event in presence.expire(known: known, now: now) { hub.emit(event) }
            }
            expireTyping()
        case .trust:
            do { try reloadTrust() } catch { logger.error("could not read the block list: \(error)") }
        case .metrics:
            updateOperationalMetrics(sessions: sessions, online: presence.onlineCount)
        case .storageFigures:
            updateStorageFigures()
        case .pruneStrangers:
            _ = try? local.store.pruneStrangers()
        }
    }
}
