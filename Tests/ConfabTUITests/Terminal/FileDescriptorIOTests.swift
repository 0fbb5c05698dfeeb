import Foundation
import Testing

@testable import ConfabTUI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct FileDescriptorIOTests {
    @Test func writeAllWaitsOutANonBlockingDescriptorThatIsFull() async throws {
        let pipe = try FileDescriptorIO.makePipe()
        defer { close(pipe.read) }
        _ = fcntl(pipe.write, F_SETFL, fcntl(pipe.write, F_GETFL) | O_NONBLOCK)
        // Far more than a pipe holds, so writes answer EAGAIN until the reader drains.
        let bytes = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let reader = Task.detached {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(pipe.read, &buffer, buffer.count)
                guard count > 0 else { break }
                received += buffer[..<count]
            }
            return received
        }
        try FileDescriptorIO.writeAll(pipe.write, bytes)
        close(pipe.write)
        #expect(await reader.value == bytes)
    }
}
