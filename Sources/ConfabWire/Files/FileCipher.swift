import ConfabCrypto
import ConfabModel
import Foundation
import SwiftProtobuf

/// The cryptography of files (Protocol.md §17.1–§17.2): a file's description is sealed
/// under the conversation key like a message, and its content under a key of its own, one
/// chunk at a time, each chunk named by the BLAKE2b-256 of its ciphertext so that anyone
/// holding the entry can check it without reading it.
public enum FileCipher {
    /// Largest sealed description: the limits of its fields with room for their encoding.
    public static let maxSealedBytes = 2048

    public static func sealDescription(
        _ description: FileDescription, key: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) throws(CryptoError) -> [UInt8] {
        var plaintext = Confab_V1_FilePlaintext()
        plaintext.name = description.name
        plaintext.folder = description.folder
        plaintext.mediaType = description.mediaType
        plaintext.key = Data(description.key)
        plaintext.sha256 = Data(description.sha256)
        plaintext.width = UInt32(clamping: description.width)
        plaintext.height = UInt32(clamping: description.height)
        var bytes: [UInt8] = try! plaintext.serializedBytes()
        defer { bytes.wipe() }
        return try AEAD.seal(bytes, key: key, additionalData: aad(conversationID, author, seq))
    }

    /// Opens a file entry's description. One that authenticates but does not decode, or
    /// breaks the rules of §17.2, is a failure too: the sender's software is broken.
    public static func openDescription(
        _ sealed: [UInt8], key: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) throws(CryptoError) -> FileDescription {
        var bytes = try AEAD.open(sealed, key: key, additionalData: aad(conversationID, author, seq))
        defer { bytes.wipe() }
        guard let plaintext = try? Confab_V1_FilePlaintext(serializedBytes: bytes, options: EntryCodec.decodingOptions)
        else { throw .operationFailed("file description decoding") }
        let description = FileDescription(
            name: plaintext.name, folder: plaintext.folder, mediaType: plaintext.mediaType, key: [UInt8](plaintext.key),
            sha256: [UInt8](plaintext.sha256), width: Int(plaintext.width), height: Int(plaintext.height))
        if let problem = description.problem { throw .operationFailed("file description: \(problem)") }
        return description
    }

    /// Chunk `index` of a file's plaintext, encrypted: `ciphertext ‖ tag`.
    public static func encryptChunk(
        _ plaintext: some ConfabCrypto.ContiguousBytes, index: Int, layout: FileLayout, key: SecureBytes
    ) throws(CryptoError) -> [UInt8] {
        try AEAD.encrypt(plaintext, key: key, nonce: nonce(index), additionalData: chunkAAD(index, layout))
    }

    public static func decryptChunk(
        _ ciphertext: some ConfabCrypto.ContiguousBytes, index: Int, layout: FileLayout, key: SecureBytes
    ) throws(CryptoError) -> [UInt8] {
        try AEAD.decrypt(ciphertext, key: key, nonce: nonce(index), additionalData: chunkAAD(index, layout))
    }

    /// A chunk's name: BLAKE2b-256 of its ciphertext.
    public static func chunkName(_ ciphertext: some ConfabCrypto.ContiguousBytes) -> [UInt8] {
        Hash.blake2b(ciphertext, length: FileLayout.chunkNameLength)
    }

    /// The id of the content whose chunk names are `manifest`.
    public static func fileID(layout: FileLayout, manifest: [UInt8]) -> FileID {
        var input = EntryDomain.fileID
        input.reserveCapacity(input.count + 12 + manifest.count)
        withUnsafeBytes(of: layout.size.bigEndian) { input.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(layout.chunkSize).bigEndian) { input.append(contentsOf: $0) }
        input.append(contentsOf: manifest)
        return FileID(validatedBytes: Hash.blake2b(input, length: FileID.length))
    }

    /// The name of chunk `index` in a manifest.
    public static func chunkName(in manifest: [UInt8], index: Int) -> ArraySlice<UInt8> {
        let start = index * FileLayout.chunkNameLength
        return manifest[start..<start + FileLayout.chunkNameLength]
    }

    private static func nonce(_ index: Int) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: AEAD.nonceLength)
        withUnsafeBytes(of: UInt64(index).bigEndian) { nonce.replaceSubrange(0..<8, with: $0) }
        return nonce
    }

    private static func chunkAAD(_ index: Int, _ layout: FileLayout) -> [UInt8] {
        var aad = EntryDomain.fileChunk
        withUnsafeBytes(of: layout.size.bigEndian) { aad.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(layout.chunkSize).bigEndian) { aad.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(index).bigEndian) { aad.append(contentsOf: $0) }
        return aad
    }

    private static func aad(_ conversationID: ConversationID, _ author: NodeID, _ seq: UInt64) -> [UInt8] {
        var aad = EntryDomain.fileMessage + conversationID.bytes + author.bytes
        withUnsafeBytes(of: seq.bigEndian) { aad.append(contentsOf: $0) }
        return aad
    }
}
