/// A configuration the simulator cannot build, or a network that did not get as far as the
/// writes.
public struct SimulationError: Error, CustomStringConvertible {
    private enum Reason {
        case configuration(String)
        case setupDidNotConverge(missing: Int)
    }

    private let reason: Reason

    static func configuration(_ what: String) -> SimulationError { SimulationError(reason: .configuration(what)) }

    static func setupDidNotConverge(missing: Int) -> SimulationError {
        SimulationError(reason: .setupDidNotConverge(missing: missing))
    }

    public var description: String {
        switch reason {
        case .configuration(let what): "cannot simulate this network: \(what)"
        case .setupDidNotConverge(let missing):
            "\(missing) members never received their group's conversation before the writes began — "
                + "raise timeLimit, or check that every group's sessions connect its members"
        }
    }
}
