import CLibFuzzerDriver
import ConfabTUI

// Bytes from the terminal: anything a paste, a broken link or a hostile program can send.
// Never a crash, the decoded keys do not depend on how the bytes are split into reads,
// and no key carries a control character or more than the paste cap.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let chunkSeed = input.first else { return 0 }
    let bytes = Array(input.dropFirst())

    var whole = KeyDecoder()
    let wholeKeys = whole.feed(bytes) + whole.flushPendingEscape()

    // Reads of 1…8 bytes, the sizes varying with the first input byte.
    var split = KeyDecoder()
    var splitKeys: [Key] = []
    var offset = 0
    var step = Int(chunkSeed)
    while offset < bytes.count {
        let length = step % 8 + 1
        splitKeys += split.feed(bytes[offset..<min(offset + length, bytes.count)])
        offset += length
        step = step / 8 + length * 31
    }
    splitKeys += split.flushPendingEscape()
    precondition(splitKeys == wholeKeys, "keys depend on how the bytes were split")

    for key in wholeKeys {
        switch key {
        case .character(let character), .alt(let character), .control(let character):
            precondition(
                character.unicodeScalars.allSatisfy { $0.properties.generalCategory != .control },
                "a control character decoded as a key")
        case .paste(let text):
            precondition(text.utf8.count <= KeyDecoder.maximumPasteBytes, "a paste beyond the cap")
            precondition(
                text.unicodeScalars.allSatisfy {
                    $0 == "\n" || $0 == "\t" || $0.properties.generalCategory != .control
                },
                "a control character in a paste")
        default:
            break
        }
    }
    return 0
}

/// SwiftPM links each executable with `main` aliased to `<target>_main`, which would
/// otherwise be missing here (no top-level code); it starts libFuzzer's driver.
@_cdecl("FuzzKeyDecoder_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    confab_run_libfuzzer(argc, argv)
}
