import CSodium
import ConfabCrypto
import Foundation

/// What the protocol makes every byte of a file cost in CPU, whatever the implementation,
/// measured with libsodium alone: box-stream sealing on the sender and opening on the
/// receiver (two secretboxes per 4,096-byte frame: the body, then the header carrying its
/// length and MAC; Protocol.md §3.8), and each 256 KiB chunk's BLAKE2b-256 on the receiver
/// (§17.5). `Bench/lan-file.sh` prints it beside a transfer on a link faster than it: no
/// transfer there can reach the raw copy when this alone takes longer.
enum FileCryptoCeiling {
    struct Figures {
        /// Milliseconds of one core per MiB for each part.
        var seal: Double
        var open: Double
        var hash: Double
        var cores: Int

        /// MiB/s with every core doing nothing but this work, perfectly shared.
        var ceiling: Double { Double(cores) * 1000 / (seal + open + hash) }
    }

    static let frame = 4096
    static let header = 34

    static func measure(mebibytes: Int = 256) -> Figures {
        // Picks libsodium's fastest code for this CPU, as the node's first use of it does.
        Sodium.ensureInitialized()
        let frames = (1 << 20) / frame
        let plain = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 20)
        let wire = UnsafeMutablePointer<UInt8>.allocate(capacity: (1 << 20) + frames * header)
        let opened = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 20)
        defer {
            plain.deallocate()
            wire.deallocate()
            opened.deallocate()
        }
        plain.initialize(repeating: 0x5a, count: 1 << 20)
        let key = [UInt8](repeating: 7, count: 32)
        let headerNonce = [UInt8](repeating: 9, count: 24)
        var bodyNonce = headerNonce
        bodyNonce[23] &+= 1
        // The header's plaintext: the body's length, then its MAC, written there by the seal.
        let headerPlain = UnsafeMutablePointer<UInt8>.allocate(capacity: 18)
        defer { headerPlain.deallocate() }
        headerPlain.initialize(repeating: 0, count: 18)
        headerPlain[0] = UInt8(frame >> 8)
        var failures = 0
        // The same nonces for every frame: the cost is the same, and nothing here is secret.
        let seal = timed {
            for _ in 0..<mebibytes {
                for index in 0..<frames {
                    let at = wire + index * (frame + header)
                    _ = crypto_secretbox_detached(
                        at + header, headerPlain + 2, plain + index * frame, UInt64(frame), bodyNonce, key)
                    _ = crypto_secretbox_easy(at, headerPlain, 18, headerNonce, key)
                }
            }
        }
        let open = timed {
            for _ in 0..<mebibytes {
                for index in 0..<frames {
                    let at = wire + index * (frame + header)
                    failures += Int(crypto_secretbox_open_easy(headerPlain, at, UInt64(header), headerNonce, key))
                    failures += Int(
                        crypto_secretbox_open_detached(
                            opened + index * frame, at + header, headerPlain + 2, UInt64(frame), bodyNonce, key))
                }
            }
        }
        precondition(failures == 0 && memcmp(plain, opened, 1 << 20) == 0, "what was sealed did not open")
        var name = [UInt8](repeating: 0, count: 32)
        let chunk = 262_160
        let hash = timed {
            for index in 0..<mebibytes * 4 {
                _ = crypto_generichash(&name, 32, wire + (index % 4) * chunk / 2, UInt64(chunk), nil, 0)
            }
        }
        return Figures(
            seal: seal * 1000 / Double(mebibytes), open: open * 1000 / Double(mebibytes),
            hash: hash * 1000 / Double(mebibytes), cores: ProcessInfo.processInfo.activeProcessorCount)
    }

    private static func timed(_ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
