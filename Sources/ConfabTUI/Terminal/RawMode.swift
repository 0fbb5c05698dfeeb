#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal settings for full-screen mode, and reading and writing them.
enum RawMode {
    /// `original` with every key delivered at once and unechoed: no line editing, and no
    /// key turned into a signal or flow control, so Ctrl+C, Ctrl+Z, Ctrl+S and Ctrl+Q
    /// reach the chat as keys. CR stays CR (ICRNL off) so Enter and Ctrl+J differ. Output
    /// processing (OPOST) stays on: the renderer only moves the cursor absolutely, and a
    /// stray "\n" written by anything else still starts a new line at its left edge.
    static func settings(from original: termios) -> termios {
        var raw = original
        raw.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON | IXOFF)
        raw.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        raw.c_cflag &= ~tcflag_t(CSIZE | PARENB)
        raw.c_cflag |= tcflag_t(CS8)
        // read() returns as soon as one byte is there; the reader polls before reading.
        withUnsafeMutableBytes(of: &raw.c_cc) { controlCharacters in
            controlCharacters[Int(VMIN)] = 1
            controlCharacters[Int(VTIME)] = 0
        }
        return raw
    }

    static func current(_ fd: Int32) throws -> termios {
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else { throw TerminalError.systemCall("tcgetattr", errno: errno) }
        return settings
    }

    /// Applies `settings` once all output written so far has been sent, so escape
    /// sequences already written are not mixed with the new mode.
    static func apply(_ settings: termios, to fd: Int32) throws {
        var settings = settings
        while tcsetattr(fd, TCSADRAIN, &settings) != 0 {
            guard errno == EINTR else { throw TerminalError.systemCall("tcsetattr", errno: errno) }
        }
    }
}
