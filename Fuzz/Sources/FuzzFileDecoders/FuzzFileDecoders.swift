import CLibFuzzerDriver
import ConfabCrypto
import ConfabModel
import ConfabWire

// What a file message's decoders read from the network or the disk (Protocol.md §17): the
// first byte picks one, the rest is its input.
//
// - 0: a file description as a member opens it — the input sealed under a known key, so
//   that the decoder behind the AEAD (FilePlaintext and its rules) sees arbitrary bytes;
//   anything it accepts keeps every rule.
// - 1: a FileHave bitmap for a file of input-chosen chunk count; the set counts exactly its
//   bits below that count.
// - 2: a name and a folder from the network made safe: never a path separator, `.` or
//   `..`, or an empty component; at most 255 bytes each.
// - 3: an image header read for its dimensions: nil or both within the limits.

private let key = SecureBytes([UInt8](repeating: 0x5A, count: 32))
private let conversation = ConversationID(bytes: [UInt8](repeating: 1, count: 16))!
private let author = NodeID(bytes: [UInt8](repeating: 2, count: 32))!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 4 {
    case 0:
        var aad = Array("confab/file-message/v1".utf8) + [0] + conversation.bytes + author.bytes
        aad += [0, 0, 0, 0, 0, 0, 0, 7]
        guard let sealed = try? AEAD.seal(input, key: key, additionalData: aad) else { return 0 }
        if let description = try? FileCipher.openDescription(
            sealed, key: key, conversationID: conversation, author: author, seq: 7)
        {
            precondition(description.problem == nil, "an opened description breaks a rule")
        }
    case 1:
        let count = input.first.map { Int($0) * 64 } ?? 0
        let set = ChunkSet(count: count, bitmap: input.dropFirst())
        precondition(set.heldCount == (0..<count).filter(set.contains).count, "a bitmap miscounted")
        precondition(set.trimmedBytes.count <= (count + 7) / 8, "a bitmap grew")
    case 2:
        let text = String(decoding: input, as: UTF8.self)
        for component in [SafeFileName.component(text)] + SafeFileName.folder(text) {
            precondition(!component.isEmpty && component != "." && component != "..", "an unsafe component")
            precondition(!component.contains("/") && !component.contains("\\"), "a separator survived")
            precondition(component.utf8.count <= SafeFileName.maxComponentBytes, "a component is too long")
        }
    default:
        if let (width, height) = ImageDimensions.read(input) {
            precondition(width > 0 && height > 0 && width <= 1 << 20 && height <= 1 << 20, "dimensions out of range")
        }
    }
    return 0
}

@_cdecl("FuzzFileDecoders_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    confab_run_libfuzzer(argc, argv)
}
