/// How front ends describe a file message, the same in the chat, the plain chat and the CLI.
extension FileInfo {
    /// `holiday.jpg · 1.4 MB · image/jpeg 800×600` (name on one line, safe to draw).
    public var summary: String {
        var parts = [name.map { "📎 " + TextSanitizer.line($0) } ?? "📎 a file that could not be decrypted"]
        parts.append(ByteSize.format(Int(clamping: size)))
        var kind = TextSanitizer.line(mediaType)
        if width > 0, height > 0 { kind += (kind.isEmpty ? "" : " ") + "\(width)×\(height)" }
        if !kind.isEmpty { parts.append(kind) }
        if !folder.isEmpty { parts.append("in " + SafeFileName.folder(folder).joined(separator: "/")) }
        return parts.joined(separator: " · ")
    }

    /// Where its content stands here, for the person: a progress bar while it is fetched,
    /// what to do when it waits or stopped.
    public var stateText: String { stateText(save: "confab save \(shortID)") }

    /// The same, naming how to save (or accept) it in this front end.
    public func stateText(save: String) -> String {
        switch state {
        case .complete: return "received — save it: \(save)"
        case .fetching: return "receiving \(ProgressBar.text(progress)) \(ProgressBar.percent(progress))"
        case .waiting:
            return "over the automatic-download limit — accept it: \(save)"
        case .failed: return "stopped: \(TextSanitizer.line(problem ?? "unknown reason"))"
        case .unreadable: return "could not be decrypted"
        case .deleted: return "deleted"
        }
    }
}

/// How far the recipients of one of my files got, as their nodes said.
public struct FileRecipients: Sendable, Equatable {
    public var held: [NodeID: UInt64] = [:]
    public var complete: Set<NodeID> = []

    public init() {}

    /// `every recipient has it`, or the least any of `count` recipients holds.
    public func text(size: UInt64, count: Int) -> String {
        if count > 0, complete.count >= count { return "✓ every recipient has it" }
        guard !held.isEmpty else { return "sent — recipients fetch it from here" }
        let least = held.count < count ? 0 : held.values.min() ?? 0
        let fraction = size == 0 ? 1 : Double(least) / Double(size)
        let whole = count > 1 ? " (\(complete.count) of \(count) have it)" : ""
        return "sending \(ProgressBar.text(fraction)) \(ProgressBar.percent(fraction))\(whole)"
    }
}

/// A progress bar in text: `▓▓▓▓▓░░░░░`.
public enum ProgressBar {
    public static func text(_ fraction: Double, width: Int = 10) -> String {
        let filled = max(0, min(width, Int((fraction * Double(width)).rounded(.down))))
        return String(repeating: "▓", count: filled) + String(repeating: "░", count: width - filled)
    }

    public static func percent(_ fraction: Double) -> String {
        "\(max(0, min(100, Int((fraction * 100).rounded(.down)))))%"
    }
}
