import ConfabClient
import ConfabModel
import ConfabNet
import Foundation
import NIOCore

/// The one link offer a node runs for its front ends (`link_offer`, Protocol.md §13): the
/// `LinkOffer` of `confab devices link`, with the person's answer coming from a later
/// `link_confirm` instead of a terminal, and its progress told to watchers as `link` events.
/// One at a time: a second code in the air would only be one more to guess.
actor FrontEndLinkOffer {
    /// Where the offer listens and what it tells the new machine.
    struct Setup: Sendable {
        var host: String
        var advertisedHost: String
        var discovery: LinkDiscovery?
        var timeout: Duration
        var group: any EventLoopGroup
    }

    private struct Running {
        let id: String
        let task: Task<Void, Never>
        /// The words are shown and this waits for the person's answer.
        var answer: CheckedContinuation<Bool, Never>?
    }

    private var running: Running?

    /// Starts the offer and returns once it listens. `emit` tells watchers; `linked` runs
    /// once a device was added, before the `linked` event.
    func start(
        _ offer: LinkOffer, setup: Setup, emit: @escaping @Sendable (LinkProgress) -> Void,
        linked: @escaping @Sendable (LinkOffer.Linked) async -> Void
    ) async throws -> LinkOfferStarted {
        if running != nil {
            throw LinkFailure(
                .notAllowed, "a link offer is already open here: finish or cancel it before opening another")
        }
        let id = Self.newID()
        let code = offer.code
        let expiresAt = Date().addingTimeInterval(Double(setup.timeout.components.seconds))
        let (ports, portContinuation) = AsyncStream.makeStream(of: Result<Int, LinkFailure>.self)
        // Holds the actor until the offer ends (five minutes at most): the node holds it anyway.
        let task = Task {
            do throws(LinkFailure) {
                let added = try await offer.run(
                    host: setup.host, timeout: setup.timeout, discovery: setup.discovery, group: setup.group,
                    events: { event in
                        switch event {
                        case .listening(let port):
                            portContinuation.yield(.success(port))
                        case .triedAndFailed, .connected, .words:
                            break
                        }
                    },
                    confirm: { prompt in await self.answer(prompt, for: id, emit: emit) })
                await linked(added)
                emit(LinkProgress(id: id, state: .linked, name: added.name, device: added.device))
            } catch {
                portContinuation.yield(.failure(error))
                emit(LinkProgress(id: id, state: .failed, message: error.description))
            }
            portContinuation.finish()
            self.ended(id)
        }
        running = Running(id: id, task: task)
        var listening: Result<Int, LinkFailure> = .failure(LinkFailure(.local, "the offer did not start"))
        for await first in ports {
            listening = first
            break
        }
        let port = try listening.get()
        let peer = "\(setup.advertisedHost.contains(":") ? "[\(setup.advertisedHost)]" : setup.advertisedHost):\(port)"
        let command = "confab init --link \(code) --peer \(peer)"
        let qr = (try? QRCode(command))?.modules.map { row in String(row.map { $0 ? "1" : "0" }) } ?? []
        return LinkOfferStarted(
            id: id, code: code.description, expiresAt: expiresAt, peer: peer, command: command, qr: qr)
    }

    /// The person's answer to the words; refused when no words wait for one.
    func confirm(_ id: String?, yes: Bool) throws {
        guard let current = running, id == nil || id == current.id else {
            throw LinkFailure(.offerEnded, "that link offer has ended: open a new one to link a machine")
        }
        guard let answer = current.answer else {
            throw LinkFailure(
                .notAllowed, "no new machine has connected to the offer yet: there are no words to answer")
        }
        running?.answer = nil
        answer.resume(returning: yes)
    }

    /// Ends the offer now: a code shown in a closed dialog must not link anyone later.
    func cancel(_ id: String?) {
        guard let current = running, id == nil || id == current.id else { return }
        // The dialogue in progress ends on the cancellation, and with it the wait for an answer.
        current.task.cancel()
    }

    /// Waits for the person's answer to `prompt`. The words are told to watchers only once
    /// the wait is in place, so an answer sent the moment they arrive finds it.
    private func answer(
        _ prompt: LinkPrompt, for id: String, emit: @escaping @Sendable (LinkProgress) -> Void
    ) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard running?.id == id, running?.answer == nil, !Task.isCancelled else {
                    continuation.resume(returning: false)
                    return
                }
                running?.answer = continuation
                emit(
                    LinkProgress(
                        id: id, state: .words, name: prompt.deviceName, device: prompt.device, words: prompt.words))
            }
        } onCancel: {
            // The other side refused first, or the offer was cancelled: nobody will answer.
            Task { await self.abandonAnswer(id) }
        }
    }

    private func abandonAnswer(_ id: String) {
        guard running?.id == id, let answer = running?.answer else { return }
        running?.answer = nil
        answer.resume(returning: false)
    }

    private func ended(_ id: String) {
        guard running?.id == id else { return }
        running?.answer?.resume(returning: false)
        running = nil
    }

    private static func newID() -> String {
        (0..<8).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }
            .joined()
    }
}
