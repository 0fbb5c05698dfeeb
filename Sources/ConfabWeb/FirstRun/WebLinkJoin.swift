import ConfabClient
import ConfabModel
import ConfabNode
import ConfabWire
import Foundation

/// The web app's first run joining the person's devices (Protocol.md §20.10), as
/// `confab init --link` does: the join runs in the server, and its `confirm` waits for the
/// person's Yes or No from the page that shows the words. One join at a time; an answer not
/// given within `answerTimeout` is a no. The data directory is written only after a yes and
/// a grant that checks.
actor WebLinkJoin {
    enum Step: Sendable {
        /// The words to show, the join waiting for the answer.
        case words(LinkPrompt)
        /// Linked: the data directory is written.
        case linked(LinkJoin.Linked)
        /// Not linked, and why, for the person; nothing was written.
        case failed(String)
    }

    let directory: DataDirectory
    let deviceName: String
    /// Where the offer's beacons are listened for when no address is given; nil with
    /// discovery off.
    let discovery: LinkDiscovery?
    let answerTimeout: Duration

    private var running = false
    private var answer: CheckedContinuation<Bool, Never>?
    /// Which question is open, so a timer left from an earlier one does not answer it.
    private var question = 0
    private var waiter: CheckedContinuation<Step, Never>?
    private var buffered: Step?

    init(directory: DataDirectory, deviceName: String, discovery: LinkDiscovery?, answerTimeout: Duration) {
        self.directory = directory
        self.deviceName = deviceName
        self.discovery = discovery
        self.answerTimeout = answerTimeout
    }

    /// Starts a join with `code`, at `address` or found by beacons; returns the words once
    /// the other machine is reached, or why it was not.
    func start(code: LinkCode, address: HostPort?) async -> Step {
        guard !running else {
            return .failed("A link is already under way in another page: answer it there, or wait for it to end.")
        }
        let join: LinkJoin
        do {
            join = try LinkJoin(code: code, deviceName: deviceName)
        } catch {
            return .failed(error.description)
        }
        guard address != nil || discovery != nil else {
            return .failed(
                "Give the other machine's address (HOST:PORT) as \"confab devices link\" prints it: this node "
                    + "does not listen for beacons (--no-discovery).")
        }
        running = true
        buffered = nil
        let directory = directory
        let discovery = discovery
        Task {
            let outcome: Step
            do throws(LinkFailure) {
                let found: HostPort
                if let address {
                    found = address
                } else {
                    found = try await join.find(discovery: discovery!)
                }
                let linked = try await join.run(
                    host: found.host, port: found.port, events: { _ in },
                    confirm: { prompt in await self.ask(prompt) }, write: join.writer(directory))
                outcome = .linked(linked)
            } catch {
                outcome = .failed(error.description)
            }
            self.end(outcome)
        }
        return await next()
    }

    /// Whether a new person may be made now: not while a link is under way, and once made,
    /// no link starts, so the two never write one data directory.
    func takeName() -> Bool {
        guard !running else { return false }
        running = true
        return true
    }

    /// The person's answer to the words; returns how the join ended.
    func answer(_ yes: Bool) async -> Step {
        guard let pending = answer else {
            if let buffered {
                self.buffered = nil
                return buffered
            }
            return .failed("No link is waiting for an answer: start again with the code.")
        }
        answer = nil
        pending.resume(returning: yes)
        return await next()
    }

    private func ask(_ prompt: LinkPrompt) async -> Bool {
        report(.words(prompt))
        question += 1
        let (timeout, asked) = (answerTimeout, question)
        Task {
            try? await Task.sleep(for: timeout)
            self.timeOut(asked)
        }
        return await withCheckedContinuation { answer = $0 }
    }

    private func timeOut(_ asked: Int) {
        guard asked == question, let pending = answer else { return }
        answer = nil
        pending.resume(returning: false)
    }

    private func end(_ outcome: Step) {
        // After a link nothing more is joined: the node starts as the linked device.
        if case .failed = outcome { running = false }
        report(outcome)
    }

    private func report(_ step: Step) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: step)
        } else {
            buffered = step
        }
    }

    private func next() async -> Step {
        if let buffered {
            self.buffered = nil
            return buffered
        }
        return await withCheckedContinuation { waiter = $0 }
    }
}
