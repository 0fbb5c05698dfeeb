import ConfabStore
import Foundation

/// The files named on a command line: a file as itself, a folder as every regular file
/// below it, each with its folder's path relative to what was named (the named folder's
/// own name first), in a stable order. Links inside folders are not followed.
public enum FileTree {
    public struct Item: Sendable, Equatable {
        public let path: String
        /// Empty for a file named on its own.
        public let folder: String
    }

    /// The files, and the links found inside folders (skipped).
    public static func expand(_ paths: [String]) throws -> (files: [Item], skippedLinks: [String]) {
        var items: [Item] = []
        var skipped: [String] = []
        for path in paths {
            let url = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
                throw StoreError.invalidInput("\(path): no such file or folder")
            }
            guard isFolder.boolValue else {
                items.append(Item(path: url.path, folder: ""))
                continue
            }
            let top = url.lastPathComponent
            let walker = FileManager.default.enumerator(
                at: url, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey], options: [])
            var found: [Item] = []
            while let file = walker?.nextObject() as? URL {
                let values = try file.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey])
                if values.isSymbolicLink == true {
                    skipped.append(file.path)
                    continue
                }
                guard values.isRegularFile == true else { continue }
                let relative = file.deletingLastPathComponent().path.dropFirst(url.path.count)
                let folder = ([top] + relative.split(separator: "/").map(String.init)).joined(separator: "/")
                found.append(Item(path: file.path, folder: folder))
            }
            items += found.sorted { ($0.folder, $0.path) < ($1.folder, $1.path) }
        }
        return (items, skipped)
    }
}
