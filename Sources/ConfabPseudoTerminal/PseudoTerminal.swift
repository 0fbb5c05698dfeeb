import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real pseudo-terminal: the program driven gets the slave side as its terminal, the
/// test or benchmark plays the terminal emulator on the master side.
public final class PseudoTerminal {
    public let master: Int32
    public let slave: Int32

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    public init() throws {
        let functions = try PseudoTerminalFunctions()
        let master = functions.open(O_RDWR | O_NOCTTY)
        guard master >= 0, functions.grant(master) == 0, functions.unlock(master) == 0 else {
            throw Failure("posix_openpt failed: errno \(errno)")
        }
        var name = [CChar](repeating: 0, count: 256)
        guard functions.name(master, &name, name.count) == 0 else {
            throw Failure("ptsname_r failed: errno \(errno)")
        }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let slave = open(path, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw Failure("opening \(path) failed: errno \(errno)") }
        self.master = master
        self.slave = slave
    }

    deinit {
        close(slave)
        close(master)
    }

    public func setSize(width: Int, height: Int) {
        var size = winsize(ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
    }

    /// Types `bytes` as the terminal emulator would send them.
    public func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress!, $0.count) }
    }

    /// What the program wrote to its terminal: everything until `count` bytes arrived or
    /// nothing more came for a while.
    public func output(atLeast count: Int, timeout: Duration = .seconds(5)) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + timeout
        while result.count < count, ContinuousClock.now < deadline {
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let read = read(master, &buffer, buffer.count)
            guard read > 0 else { break }
            result += buffer[..<read]
        }
        return result
    }

    public func settings() throws -> termios {
        var settings = termios()
        guard tcgetattr(slave, &settings) == 0 else { throw Failure("tcgetattr failed: errno \(errno)") }
        return settings
    }
}

/// posix_openpt, grantpt, unlockpt and ptsname_r, which the Glibc module leaves out (they
/// need _XOPEN_SOURCE), looked up in the C library itself.
private struct PseudoTerminalFunctions {
    typealias OnDescriptor = @convention(c) (Int32) -> Int32
    typealias Name = @convention(c) (Int32, UnsafeMutablePointer<CChar>, Int) -> Int32

    let open: OnDescriptor
    let grant: OnDescriptor
    let unlock: OnDescriptor
    let name: Name

    init() throws {
        let library = dlopen(nil, RTLD_NOW)
        func look<Function>(_ symbol: String, as: Function.Type) throws -> Function {
            guard let address = dlsym(library, symbol) else {
                throw PseudoTerminal.Failure("no \(symbol) in the C library")
            }
            return unsafeBitCast(address, to: Function.self)
        }
        open = try look("posix_openpt", as: OnDescriptor.self)
        grant = try look("grantpt", as: OnDescriptor.self)
        unlock = try look("unlockpt", as: OnDescriptor.self)
        name = try look("ptsname_r", as: Name.self)
    }
}
