import ConfabModel
import Foundation

/// Announces a message that arrived in a conversation that is not open.
public struct Notifier: Sendable {
    public let style: NotificationStyle
    let ring: @Sendable () -> Void
    let notifySend: String?

    public init(style: NotificationStyle, ring: @escaping @Sendable () -> Void) {
        self.style = style
        self.ring = ring
        notifySend = style == .desktop ? Self.findExecutable("notify-send") : nil
    }

    public func announce(_ message: ChatMessage, in summary: ConversationSummary?) {
        switch style {
        case .off:
            return
        case .bell:
            ring()
        case .desktop:
            guard let notifySend else { return ring() }
            let title = summary.map { "\(message.authorName) · \($0.displayName)" } ?? message.authorName
            let body = Preview.line(message.text ?? "(could not be decrypted)", mine: false)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: notifySend)
            process.arguments = ["--app-name=Confab", title, body]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            if (try? process.run()) == nil { ring() }
        }
    }

    static func findExecutable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
