import ArgumentParser

/// A mistyped subcommand ("confab sned bob hi") reads to the parser as stray arguments;
/// this names it and suggests the closest command instead.
struct UnknownCommand: Error, CustomStringConvertible {
    let word: String
    let suggestion: String?
    /// The command group the word was looked up in ("devices"), and its commands; nil for
    /// confab's own commands.
    var group: (name: String, commands: [String])? = nil

    /// The first word that is neither an option, the value of `--data`, nor a command.
    static func find(in arguments: [String], commands: [String]) -> UnknownCommand? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--data" {
                index += 2
                continue
            }
            if argument.hasPrefix("-") || argument == "help" {
                return nil
            }
            guard !commands.contains(argument) else { return nil }
            let closest = commands.map { ($0, distance($0, argument)) }.min { $0.1 < $1.1 }
            return UnknownCommand(word: argument, suggestion: closest.flatMap { $0.1 <= 2 ? $0.0 : nil })
        }
        return nil
    }

    /// A mistyped command of `group` ("confab devices lnk"). A group whose default command
    /// takes no arguments reads any word after it as that command's stray argument, and
    /// would answer with the default command's usage.
    static func find(in arguments: [String], group: String, commands: [String]) -> UnknownCommand? {
        var index = 0
        while index < arguments.count, arguments[index] == "--data" { index += 2 }
        guard index < arguments.count, arguments[index] == group,
            var unknown = find(in: Array(arguments[(index + 1)...]), commands: commands)
        else { return nil }
        unknown.group = (group, commands)
        return unknown
    }

    var description: String {
        let hint = suggestion.map { "did you mean \"\($0)\"? " } ?? ""
        if let group {
            return "\"\(word)\" is not a \(group.name) command — \(hint)(\(group.name) commands: "
                + group.commands.joined(separator: ", ") + ")"
        }
        return "no command named \"\(word)\" — \(hint)run \"confab --help\" for the list"
    }

    /// Edit distance counting a swap of two neighbours as one ("sned" is one from "send").
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
