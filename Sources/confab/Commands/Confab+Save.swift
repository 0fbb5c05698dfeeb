import ArgumentParser
import ConfabClient
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation

extension Confab {
    struct Save: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a received file out, fetching it first if it is not here yet.",
            discussion: """
                ID is a file id prefix (confab files). DEST is a folder (the current one when \
                omitted): the file goes there under its name, inside the folders it was sent \
                in; or a file path. An existing file is never replaced ("name (2).ext" instead). \
                A file not here yet is accepted (whatever its size) and fetched while a node \
                runs; save waits for it.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: OutputOptions

        @Argument(help: "The file's id, or a unique prefix of it (4 or more hex characters).")
        var id: String

        @Argument(help: "Where to write it: a folder, or a file path.")
        var destination: String?

        @Option(help: "Give up waiting for a file not here yet after this many seconds (exit code 3).")
        var timeout: Double = 3600

        func validate() throws {
            guard id.count >= 4, id.allSatisfy(\.isHexDigit) else {
                throw ValidationError("a file id is 4 or more hex characters (confab files lists them)")
            }
        }

        func run() async throws {
            let local = try global.open()
            var file = try Self.find(id, in: local.store)
            if file.state != .complete { file = try await fetch(file, local: local) }
            let target = URL(fileURLWithPath: destination ?? FileManager.default.currentDirectoryPath)
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: target.path, isDirectory: &isFolder)
            let asFolder = (exists && isFolder.boolValue) || destination == nil || destination?.hasSuffix("/") == true
            if asFolder, !exists {
                try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            }
            let saved = try local.store.saveFile(file, to: target, asFolder: asFolder)
            if output.json {
                try JSONOutput.print(["path": saved.path])
            } else {
                Console.out("saved to \(saved.path)")
            }
        }

        static func find(_ prefix: String, in store: ConfabStore) throws -> FileInfo {
            let matches = try store.files(matching: prefix)
            let ids = Set(matches.map(\.fileID))
            guard let first = matches.first(where: { $0.name != nil }) ?? matches.first else {
                throw CLIError("no file \(prefix) here (run \"confab files\")")
            }
            guard ids.count == 1 else {
                throw CLIError(
                    "\(prefix) names \(ids.count) files: \(ids.map { String($0.hex.prefix(12)) }.sorted().joined(separator: ", ")) — give more of the id"
                )
            }
            return first
        }

        /// Accepts the file and waits, with a progress line, until the node holds it whole.
        private func fetch(_ file: FileInfo, local: Profile) async throws -> FileInfo {
            guard file.state != .unreadable, file.state != .deleted else {
                throw CLIError(
                    "file \(file.shortID) \(file.state == .deleted ? "was deleted by its sender" : "could not be decrypted"); there is nothing to save"
                )
            }
            let messenger = try await local.messenger()
            guard messenger.reachesNode else {
                throw CLIError(
                    "file \(file.shortID) is not here yet (\(ProgressBar.percent(file.progress)) received); it is fetched while a node runs — start \"confab up\" and run this again"
                )
            }
            let events = try await messenger.events(for: file.conversationID)
            try await messenger.acceptFile(file.fileID)
            let quiet = output.json
            let result = try await Deadline.within(timeout) { () async throws -> FileInfo? in
                let now = try Self.find(file.fileID.hex, in: local.store)
                if now.state == .complete { return now }
                for await event in events {
                    guard case .file(let info) = event, info.fileID == file.fileID else { continue }
                    if !quiet {
                        Console.err("\(ProgressBar.text(info.progress)) \(ProgressBar.percent(info.progress))")
                    }
                    if info.state == .complete || info.state == .failed { return info }
                }
                return nil
            }
            await messenger.close()
            guard let result else {
                Console.err(
                    "file \(file.shortID) did not arrive within \(Int(timeout)) s; the node goes on fetching it")
                throw ExitCode(3)
            }
            guard result.state == .complete else {
                throw CLIError("file \(file.shortID): \(result.stateText)")
            }
            return result
        }
    }
}
