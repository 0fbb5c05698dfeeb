import ConfabClient
import ConfabModel

/// A yes/no question where only "y" means yes.
struct ConfirmDialog {
    static let deleteQuestion = "Delete this conversation and its messages from this machine? y/N"
    static let unsendQuestion = "Delete this message for everyone? Every node replaces it with \"message deleted\". y/N"

    /// Removing one of my machines (`/devices remove NAME`), named as `/devices` shows it.
    static func removeDeviceQuestion(_ device: DeviceListing.Device) -> String {
        "Remove \(DeviceText.name(device)) (\(DeviceText.shortFingerprint(device.id)))? It will read nothing written "
            + "from now on, and what it writes will be refused. y/N"
    }

    let title: String
    let subject: String
    let question: String
    let screenWidth: Int
    let screenHeight: Int

    func box() -> OverlayBox {
        // The question on one line when the screen allows: it is the whole point of the box.
        let wanted = max(DisplayWidth.of(question), DisplayWidth.of(TextSanitizer.line(subject)))
        let width = min(wanted, max(20, screenWidth - 6))
        var content = [ScreenLine(TextSanitizer.line(subject), Palette.bold), ScreenLine()]
        content += TextWrap.wrap(question, width: width).map { ScreenLine($0) }
        return OverlayBox(
            title: title, content: content, preferredWidth: width, screenWidth: screenWidth,
            screenHeight: screenHeight)
    }
}
