import ConfabClient
import ConfabModel
import ConfabStore
import Foundation

/// What both chats do with files: send a path typed after `/file` (a folder as a tree),
/// save a received file into the downloads folder (or accept one still waiting), and
/// complete a path on Tab.
enum FileActions {
    enum Saved {
        case saved(URL)
        /// Not here yet: accepted, it is being fetched.
        case fetching
    }

    /// `~` is the home folder; a relative path is taken from the current folder.
    static func expand(_ path: String) -> String {
        var path = path
        if path == "~" || path.hasPrefix("~/") { path = NSHomeDirectory() + path.dropFirst() }
        if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// Sends every file of the path (a folder's, as a tree); returns what was sent.
    static func send(
        _ path: String, to conversation: ConversationID, messenger: any Messenger
    ) async throws
        -> [SentFile]
    {
        var sent: [SentFile] = []
        for file in try FileTree.expand([expand(path)]).files {
            sent.append(
                try await messenger.sendFile(at: file.path, folder: file.folder, to: .conversation(conversation)))
        }
        guard !sent.isEmpty else { throw StoreError.invalidInput("\(path) holds no files") }
        return sent
    }

    /// `$XDG_DOWNLOAD_DIR`, else `~/Downloads` when it exists, else the current folder.
    static var downloads: URL {
        if let folder = ProcessInfo.processInfo.environment["XDG_DOWNLOAD_DIR"], !folder.isEmpty {
            return URL(fileURLWithPath: folder)
        }
        let home = URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent("Downloads")
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: home.path, isDirectory: &isFolder), isFolder.boolValue { return home }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }

    static func save(_ file: FileInfo, into folder: URL = downloads, messenger: any Messenger) async throws -> Saved {
        guard let current = try await messenger.files(matching: file.fileID.hex).first(where: { $0.name != nil })
        else {
            throw StoreError.invalidInput("the file is no longer here")
        }
        guard current.state == .complete else {
            try await messenger.acceptFile(file.fileID)
            return .fetching
        }
        return .saved(URL(fileURLWithPath: try await messenger.saveFile(current.fileID, into: folder.path)))
    }

    /// `/file PATH` with PATH completed as far as it is unambiguous, or as it was.
    static func complete(_ input: String) -> String {
        let typed = String(input.dropFirst("/file ".count))
        let expanded = typed.isEmpty ? "./" : typed
        let slash = expanded.lastIndex(of: "/")
        let folderPart = slash.map { String(expanded[...$0]) } ?? ""
        let stem = slash.map { String(expanded[expanded.index(after: $0)...]) } ?? expanded
        let folder = expand(folderPart.isEmpty ? "." : folderPart)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasPrefix(stem) && (stem.hasPrefix(".") || !$0.hasPrefix("."))
        }.sorted()
        guard let first = names.first else { return input }
        var common = first
        for name in names.dropFirst() {
            while !name.hasPrefix(common) { common.removeLast() }
        }
        var completed = (typed.isEmpty ? "" : folderPart) + common
        var isFolder: ObjCBool = false
        if names.count == 1, FileManager.default.fileExists(atPath: folder + "/" + common, isDirectory: &isFolder),
            isFolder.boolValue
        {
            completed += "/"
        }
        return "/file " + completed
    }
}
