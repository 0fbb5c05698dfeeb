import ConfabModel
import ConfabSync
import ConfabWire

extension Simulation {
    /// A session opens: both engines learn of each other and each sends its Hello, as the
    /// node does when a handshake completes.
    func open(_ link: LinkID) {
        links[link]?.up = true
        links[link]?.session += 1
        for (node, peer) in [(link.low, link.high), (link.high, link.low)] {
            nodes[node].engine.peerConnected(nodes[peer].id)
        }
        for (node, peer) in [(link.low, link.high), (link.high, link.low)] {
            send(.hello(.init(displayName: "node \(node)", role: .person, listenPort: 1)), from: node, to: peer)
        }
    }

    /// A session closes: what was on its way over it is lost.
    func close(_ link: LinkID) {
        guard links[link]?.up == true else { return }
        links[link]?.up = false
        nodes[link.low].engine.peerDisconnected(nodes[link.high].id)
        nodes[link.high].engine.peerDisconnected(nodes[link.low].id)
    }

    /// Sends what an engine decided: its replies to the peer whose message it handled, its
    /// pushes to the peers they name, once `delay` (the work's cost) has passed.
    func dispatch(_ output: SyncOutput, from node: SimulatedNode, replyTo peer: Int?, after delay: Duration) {
        if let peer {
            for message in output.replies { send(message, from: node.index, to: peer, after: delay) }
        }
        for (target, messages) in output.pushes.sorted(by: { $0.key < $1.key }) {
            guard let peer = index[target] else { continue }
            for message in messages { send(message, from: node.index, to: peer, after: delay) }
        }
    }

    /// One message over a link, through the real codec; a link that is down (or a peer
    /// with no session) drops it, as a closed socket would.
    private func send(_ message: SessionMessage, from node: Int, to peer: Int, after delay: Duration = .zero) {
        let link = LinkID(node, peer)
        guard let state = links[link], state.up else { return }
        let bytes = SessionCodec.encode(message)
        tally.sent(message, encoded: bytes.count)
        observer?(clock.time + delay, node, peer, message)
        // A message the codec cannot read back would be a bug in the codec, not the network.
        let decoded = (try? SessionCodec.decode(bytes)).flatMap { $0 }
        precondition(decoded == message, "the session codec did not round-trip a \(SimulationTally.kind(of: message))")
        let arrival = SimulatedNode.Arrival(from: node, session: state.session, message: message)
        pending += 1
        lastActivity = max(lastActivity, clock.time + delay)
        events.schedule(.work(node: peer, .message(arrival)), at: clock.time + delay + state.latency)
    }
}
