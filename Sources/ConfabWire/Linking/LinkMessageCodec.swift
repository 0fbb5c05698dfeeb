import ConfabModel
import Foundation
import SwiftProtobuf

/// Encodes and decodes link messages (Protocol.md §20.10) by the rules every decoder here
/// follows: the size first, unknown fields skipped, a depth limit, and every field checked
/// against its limit before anything is used.
public enum LinkMessageCodec {
    /// The largest message, length prefix not counted.
    public static let maxMessageBytes = 1_048_576
    public static let maxReasonBytes = 200
    public static let maxKeyMessages = 256
    public static let maxKeysPerMessage = 4096
    static let maxEpochSeq: UInt64 = 1 << 48

    static let decodingOptions: BinaryDecodingOptions = {
        var options = BinaryDecodingOptions()
        options.messageDepthLimit = 4
        options.discardUnknownFields = true
        return options
    }()

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    public static func encode(_ message: LinkMessage) -> [UInt8] {
        var out = Confab_V1_LinkMessage()
        switch message {
        case .request(let name):
            var request = Confab_V1_LinkRequest()
            request.deviceName = name
            out.request = request
        case .confirm:
            out.confirm = Confab_V1_LinkConfirm()
        case .refuse(let reason):
            var refuse = Confab_V1_LinkRefuse()
            refuse.reason = reason
            out.refuse = refuse
        case .grant(let grant):
            var encoded = Confab_V1_LinkGrant()
            encoded.person = Data(grant.person.bytes)
            encoded.deviceEntries = grant.deviceEntries.map { Data($0) }
            encoded.displayName = grant.displayName
            encoded.networkKey = Data(grant.networkKey)
            encoded.keyMessages = UInt32(grant.keyMessages)
            out.grant = encoded
        case .keys(let keys):
            var encoded = Confab_V1_LinkKeys()
            encoded.keys = keys.map { key in
                var item = Confab_V1_LinkEpochKey()
                item.conversationID = Data(key.conversation.bytes)
                item.author = Data(key.author.bytes)
                item.seq = key.seq
                item.key = Data(key.key)
                return item
            }
            out.keys = encoded
        case .done:
            out.done = Confab_V1_LinkDone()
        }
        return try! out.serializedBytes()
    }

    public static func decode(_ bytes: [UInt8]) throws(Failure) -> LinkMessage {
        guard bytes.count <= maxMessageBytes else {
            throw Failure("a link message of \(bytes.count) bytes (limit \(maxMessageBytes))")
        }
        let message: Confab_V1_LinkMessage
        do {
            message = try Confab_V1_LinkMessage(serializedBytes: bytes, options: decodingOptions)
        } catch {
            throw Failure("not a link message")
        }
        switch message.kind {
        case .request(let request)?:
            try checkName(request.deviceName, what: "device name")
            return .request(deviceName: request.deviceName)
        case .confirm?:
            return .confirm
        case .refuse(let refuse)?:
            guard refuse.reason.utf8.count <= maxReasonBytes else {
                throw Failure("a refusal reason of \(refuse.reason.utf8.count) bytes (limit \(maxReasonBytes))")
            }
            return .refuse(reason: refuse.reason)
        case .grant(let grant)?:
            return .grant(try decodeGrant(grant))
        case .keys(let keys)?:
            return .keys(try decodeKeys(keys))
        case .done?:
            return .done
        case nil:
            throw Failure("a link message of no known kind")
        }
    }

    /// As §20.3's `add.name`: 1 to 64 bytes, already clean, not like a key.
    public static func checkName(_ name: String, what: String) throws(Failure) {
        guard !name.isEmpty, name.utf8.count <= Limits.maxNameBytes else {
            throw Failure("a \(what) of \(name.utf8.count) bytes (1 … \(Limits.maxNameBytes))")
        }
        guard DisplayName.cleaned(name) == name else {
            throw Failure("a \(what) with controls, format characters or extra spaces")
        }
        if let refusal = DisplayName.keyLikeRefusal(name) { throw Failure(refusal) }
    }

    private static func decodeGrant(_ grant: Confab_V1_LinkGrant) throws(Failure) -> LinkGrant {
        guard let person = NodeID(bytes: grant.person) else {
            throw Failure("a person key of \(grant.person.count) bytes, want 32")
        }
        guard !grant.deviceEntries.isEmpty, grant.deviceEntries.count <= DeviceList.maxEntries else {
            throw Failure("a list of \(grant.deviceEntries.count) entries (1 … \(DeviceList.maxEntries))")
        }
        try checkName(grant.displayName, what: "display name")
        guard grant.networkKey.count == 32 else {
            throw Failure("a network key of \(grant.networkKey.count) bytes, want 32")
        }
        guard grant.keyMessages <= maxKeyMessages else {
            throw Failure("\(grant.keyMessages) key messages announced (limit \(maxKeyMessages))")
        }
        return LinkGrant(
            person: person, deviceEntries: grant.deviceEntries.map { [UInt8]($0) }, displayName: grant.displayName,
            networkKey: [UInt8](grant.networkKey), keyMessages: Int(grant.keyMessages))
    }

    private static func decodeKeys(_ keys: Confab_V1_LinkKeys) throws(Failure) -> [LinkEpochKey] {
        guard !keys.keys.isEmpty, keys.keys.count <= maxKeysPerMessage else {
            throw Failure("\(keys.keys.count) keys in one message (1 … \(maxKeysPerMessage))")
        }
        var out: [LinkEpochKey] = []
        out.reserveCapacity(keys.keys.count)
        for item in keys.keys {
            guard let conversation = ConversationID(bytes: item.conversationID),
                let author = NodeID(bytes: item.author),
                item.seq >= 1, item.seq <= maxEpochSeq, item.key.count == 32
            else {
                throw Failure("a conversation key with a wrong id, author, seq or key length")
            }
            out.append(LinkEpochKey(conversation: conversation, author: author, seq: item.seq, key: [UInt8](item.key)))
        }
        return out
    }
}
