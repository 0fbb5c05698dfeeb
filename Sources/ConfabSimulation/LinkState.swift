/// A link between two nodes: a session that partitions close and healing opens again.
struct LinkState {
    let latency: Duration
    var up = true
    /// Counts the sessions opened over the link: what was sent over a closed one is lost.
    var session = 0
}
