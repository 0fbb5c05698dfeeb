import ConfabModel

/// A tiny seeded generator so property tests see the same "random" cases on every run and
/// every machine; a failure can be replayed from its seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }
}

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
