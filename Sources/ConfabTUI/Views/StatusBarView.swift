import ConfabModel

/// The last row: who I am and whether messages can leave now, sync progress during a
/// large sync, a notice when there is one, and the keys that matter where the focus is.
struct StatusBarView {
    static let offline = "Offline — messages will be sent when a peer is reachable"

    let myName: String
    let onlinePeers: Int
    let syncReceived: Int
    let syncExpected: Int
    let notice: String?
    /// Key hints, longest first: the first that fits is shown.
    let hints: [String]
    let width: Int

    func line() -> ScreenLine {
        var left = ScreenLine(" ", Palette.statusBar)
        if !myName.isEmpty { left.append(TextSanitizer.line(myName) + " · ", Palette.statusBar) }
        if onlinePeers > 0 {
            let noun = onlinePeers == 1 ? "peer" : "peers"
            left.append("Online · \(NumberText.grouped(onlinePeers)) \(noun)", Palette.statusBar)
        } else {
            left.append(Self.offline, Palette.statusOffline)
        }
        if syncExpected > 0, syncReceived < syncExpected {
            let progress = "Syncing \(NumberText.grouped(syncReceived)) of \(NumberText.grouped(syncExpected))"
            left.append("  " + progress, Palette.statusBar)
        }
        if let notice {
            left.append("  " + TextSanitizer.line(notice), Palette.statusOffline)
        }
        // Hints give way when room runs out: the status itself is what the bar is for.
        for hint in hints {
            let right = ScreenLine(" " + hint + " ", Palette.statusBar)
            if left.width + right.width <= width {
                return .justified(left, right, width: width, fill: Palette.statusBar)
            }
        }
        return left.fitted(to: width, fill: Palette.statusBar)
    }
}
