import Foundation

/// Reads a QR code the way a camera app would, with zbar's `zbarimg` (Debian's zbar-tools,
/// which `make test-deps` installs): a code drawn by Confab is checked by a decoder that is
/// not Confab's encoder.
public enum QRReader {
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg") }

    /// The text of the code whose modules (true dark) are `modules`, drawn 4 pixels a module
    /// inside a light quiet zone of 4 modules.
    public static func read(modules: [[Bool]], in directory: URL) throws -> String {
        let scale = 4
        let quiet = 4
        let size = (modules.count + 2 * quiet) * scale
        var pixels = "P1\n\(size) \(size)\n"
        for y in 0..<size {
            let row = y / scale - quiet
            var line = ""
            for x in 0..<size {
                let column = x / scale - quiet
                let dark =
                    modules.indices.contains(row) && modules[row].indices.contains(column) && modules[row][column]
                line += dark ? "1 " : "0 "
            }
            pixels += line + "\n"
        }
        let image = directory.appendingPathComponent("qr-\(UUID().uuidString).pbm")
        try pixels.write(to: image, atomically: true, encoding: .ascii)
        defer { try? FileManager.default.removeItem(at: image) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        process.arguments = ["--raw", "-q", image.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ConfabBinary.Failure("zbarimg read no QR code (exit \(process.terminationStatus))")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    /// The modules of a code drawn in a terminal with half blocks (light modules drawn, as
    /// `QRCode.terminalLines` does), from the screen's lines made only of those blocks.
    public static func modules(fromScreen lines: [String]) -> [[Bool]] {
        let blocks: Set<Character> = ["█", "▀", "▄", " "]
        let drawn = lines.filter { line in
            line.contains { $0 == "█" || $0 == "▀" || $0 == "▄" } && line.allSatisfy { blocks.contains($0) }
        }
        var rows: [[Bool]] = []
        for line in drawn {
            let characters = Array(line)
            rows.append(characters.map { $0 == " " || $0 == "▄" })
            rows.append(characters.map { $0 == " " || $0 == "▀" })
        }
        return rows
    }
}
