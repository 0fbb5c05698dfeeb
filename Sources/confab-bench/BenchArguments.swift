/// What `confab-bench` was asked to run, read before anything runs: a mistyped argument
/// then costs an error instead of ten minutes of benchmarks nobody asked for.
struct BenchArguments: Sendable {
    /// Entries for the first parts; the later parts scale some of their sizes by it.
    var count = 20_000
    /// `--file-crypto`: only the per-byte crypto cost of a file transfer.
    var fileCryptoOnly = false
    /// `--send-path`: only the CPU per message of the send path (two builds compared).
    var sendPathOnly = false
    /// `--web-fixture DIR`: only write the web app benchmark's data directory there.
    var webFixture: String?
    /// `--web-floors DIR`: only the floors beside Bench/web.sh's figures, on that data directory.
    var webFloors: String?
    /// Parts named by `--no-PART`.
    var skipped: Set<String> = []

    /// The parts that `--no-PART` skips, in the order they run.
    static let parts = ["chat", "network", "send", "pipe", "link", "sim", "file"]

    enum Parsed: Sendable {
        case run(BenchArguments)
        case help
        case wrong(String)
    }

    static func parse(_ arguments: [String]) -> Parsed {
        var parsed = BenchArguments()
        var counted = false
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "-h" || argument == "--help" { return .help }
            if argument == "--web-fixture" || argument == "--web-floors" {
                guard let directory = rest.popFirst(), !directory.hasPrefix("-") else {
                    return .wrong("\(argument) needs a directory")
                }
                if argument == "--web-fixture" { parsed.webFixture = directory } else { parsed.webFloors = directory }
            } else if argument == "--file-crypto" {
                parsed.fileCryptoOnly = true
            } else if argument == "--send-path" {
                parsed.sendPathOnly = true
            } else if argument.hasPrefix("--no-"), parts.contains(String(argument.dropFirst(5))) {
                parsed.skipped.insert(String(argument.dropFirst(5)))
            } else if let count = Int(argument) {
                guard count > 0 else { return .wrong("N must be a positive number of entries, not \(argument)") }
                guard !counted else { return .wrong("N given twice (\(parsed.count) and \(argument))") }
                parsed.count = count
                counted = true
            } else {
                return .wrong("unknown argument \"\(argument)\"")
            }
        }
        return .run(parsed)
    }

    func runs(_ part: String) -> Bool { !skipped.contains(part) }

    static let usage = """
        usage: confab-bench [N] [--no-chat] [--no-network] [--no-send] [--no-pipe] [--no-link] [--no-sim] [--no-file]
               confab-bench --file-crypto
               confab-bench [N] --send-path
               confab-bench --web-fixture DIR
               confab-bench --web-floors DIR
               confab-bench --help

        Measures Confab's hot paths, each beside a ceiling measured in the same run (raw
        libsodium, a bare loopback round trip or copy), and prints the ratio. Every part
        runs by default, in the order below: about ten minutes on two cores.

          N              entries for the first part (default 20000); a smaller N also
                         shrinks the syncs, the pipe and the file, and runs faster
          (always)       Ed25519 sign and verify, then entries signed, decoded and verified,
                         store appends and fsync'd sends of N entries
          --no-chat      skip the chat: first frame and keystroke cost on a store of 1,000
                         conversations of 100 messages (CONFAB_BENCH_CHAT_DIR=DIR keeps it)
          --no-network   skip one-way latency and initial sync between two nodes in this
                         process (CONFAB_BENCH_DETAIL=1 also times the parts of a send)
          --no-send      skip the send path: messages sent one at a time through a node's
                         messenger to a peer node in this process, CPU time per message
                         beside the crypto one message needs (N/10 messages, 100 to 2000)
          --no-pipe      skip `confab send --lines` and an initial sync between two confab
                         processes (needs the confab binary beside confab-bench)
          --no-link      skip linking a machine to a person whose node holds 10,000 messages
                         in 100 conversations (N/2 when N < 20000): seconds until the new
                         machine holds and reads them all, beside the initial sync of the
                         same history to a contact in the same run (needs the confab binary)
          --no-sim       skip the simulation of hundreds of nodes in virtual time
                         (CONFAB_BENCH_SIM=200,1000/bounded runs only those scenarios:
                         a node count, or a count and everyone, members or bounded;
                         200/room and 1000/room, one room of every node, and 200/large
                         and 1000/large, one large group of every node, and 100/lan,
                         the 100-node LAN bench's large group on 2 shared cores, run only so;
                         CONFAB_BENCH_SIM_PARTITIONS=0 runs them with no partition)
          --no-file      skip a file sent between two confab up processes and chat latency
                         meanwhile (CONFAB_BENCH_FILE_MB sets its size: 1000 MiB, or 100 when
                         N < 20000; needs the confab binary beside confab-bench)
          --file-crypto  print only the per-MiB crypto cost of a file transfer, and exit
          --send-path    run only the send path, and exit (to compare two builds, run
                         each in turn)
          --web-fixture DIR
                         write a heavy user's data directory in DIR (which must not hold
                         one), and exit: 1,000 conversations of 100 messages and one of
                         10,000, the newest (for Bench/web.sh)
          --web-floors DIR
                         print only what the web app's figures are measured beside, on the
                         data directory DIR (a --web-fixture one), and exit: the store's
                         conversation list and the long thread's newest 60 messages, each
                         read and encoded as the web API answers them, and the real `confab
                         chat`'s first frame beside `confab --version` (needs the confab
                         binary beside confab-bench; the chat serves the web app on
                         127.0.0.1:7462 while it runs, so Bench/web.sh runs this in a network
                         namespace)
          -h, --help     print this, and exit

        Exit codes: 0 done, 2 usage.
        """
}
