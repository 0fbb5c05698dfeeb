/// Errors as the chat shows them: the error's own sentence (Confab's errors say what
/// happened and what to do), never a Swift dump.
enum ChatErrorText {
    static func describe(_ error: any Error) -> String {
        String(describing: error)
    }
}
