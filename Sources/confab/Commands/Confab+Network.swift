import ArgumentParser

extension Confab {
    struct Network: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Private networks: make, use and show the network key.",
            discussion: """
                Nodes with different network keys neither see nor talk to each other. A key is \
                chosen by --network-key, else $CONFAB_NETWORK_KEY, else this data directory's \
                network.key (written by "confab network use"), else Confab's public default.
                """,
            subcommands: [NetworkNew.self, NetworkUse.self, NetworkShow.self],
            defaultSubcommand: NetworkShow.self)
    }
}
