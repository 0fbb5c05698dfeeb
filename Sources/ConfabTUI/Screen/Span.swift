import ConfabModel

/// A run of text in one style. Text never holds control characters or newlines: views
/// sanitise what they show, since message text comes from the network.
public struct Span: Hashable, Sendable {
    public var text: String
    public var style: TextStyle

    public init(_ text: String, _ style: TextStyle = .plain) {
        self.text = text
        self.style = style
    }

    /// Columns on screen (wide characters count two).
    public var width: Int { DisplayWidth.of(text) }
}
