import ConfabClient
import ConfabModel
import Foundation

/// What each of the node's timed duties does (`Housekeeping` says when).
extension Node {
    func housekeeping() async {
        var schedule = Housekeeping()
        while !Task.isCancelled {
            let started = ContinuousClock.now
            if housekeepingMayNap {
                // A sleep of its own, so that `wakeHousekeeping` can end it early.
                let nap = Task { _ = try? await Task.sleep(for: Housekeeping.tick * Housekeeping.idleTicks) }
                housekeepingNap = nap
                await withTaskCancellationHandler {
                    await nap.value
                } onCancel: {
                    nap.cancel()
                }
                housekeepingNap = nil
            } else {
                try? await Task.sleep(for: Housekeeping.tick)
            }
            let elapsed = Int(((ContinuousClock.now - started) / Housekeeping.tick).rounded())
            for duty in schedule.next(store: local.store.generation, elapsed: elapsed) { perform(duty) }
        }
    }

    /// Whether no duty has anything due within a few ticks: nothing happened lately, and
    /// neither the engine, the file exchange, typing nor the disk waits on a timer.
    private var housekeepingMayNap: Bool {
        ContinuousClock.now - lastActivity > Housekeeping.quietAfter && !engine.hasTimers && !files.hasTimers
            && typingTable.isEmpty && !local.store.commitStatistics.pendingSync
    }

    /// Something happened that a duty may have to follow up within a tick (a message read,
    /// a write, a session opened or closed): the full pace again, from now.
    func wakeHousekeeping() {
        lastActivity = .now
        housekeepingNap?.cancel()
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
