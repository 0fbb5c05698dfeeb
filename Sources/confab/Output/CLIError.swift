/// A failure to report to the user as is: what happened and what to do. Exit code 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
