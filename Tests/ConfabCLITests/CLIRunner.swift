import ConfabTestSupport
import Foundation

/// The CLI pointed at one data directory.
struct CLIRunner {
    typealias Result = ConfabBinary.Result

    let data: URL

    static var binary: URL { ConfabBinary.url }

    static func temporaryDirectory() throws -> URL { try ConfabBinary.temporaryDirectory("confab-cli") }

    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Result {
        try ConfabBinary.run(data: data, arguments, stdin: stdin, environment: environment)
    }

    func initialize(name: String) throws -> String {
        try ConfabBinary.initialize(data: data, name: name)
    }
}
