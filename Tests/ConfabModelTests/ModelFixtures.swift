import ConfabModel
import ConfabTestSupport

/// Node ids for model tests: any 32 bytes will do, no key pair is needed.
func nodeID(_ n: UInt8) -> NodeID {
    NodeID(bytes: [UInt8](repeating: n, count: NodeID.length))!
}

/// A small pool of authors and small seqs, so random clocks often share authors and are
/// often equal or ordered, not only concurrent.
let clockAuthors: [NodeID] = (1...5).map { nodeID(UInt8($0)) }

func randomClock(using rng: inout SplitMix64) -> VectorClock {
    var clock = VectorClock()
    for author in clockAuthors where Bool.random(using: &rng) {
        clock[author] = UInt64.random(in: 0...3, using: &rng)
    }
    return clock
}
