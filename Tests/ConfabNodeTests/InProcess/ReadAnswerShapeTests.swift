import ConfabClient
import ConfabModel
import ConfabStore
import Foundation
import Testing

/// What the read operations answer on the control socket (Protocol.md §13): the fields the
/// documentation lists, by those names, and every answer read back exactly as it went —
/// times to the millisecond included.
@Suite struct ReadAnswerShapeTests {
    static let alice = NodeID(bytes: [UInt8](repeating: 1, count: 32))!
    static let bob = NodeID(bytes: [UInt8](repeating: 2, count: 32))!
    static let conversation = ConversationID(bytes: [UInt8](repeating: 9, count: 16))!
    /// A time with milliseconds that a double cannot hold exactly.
    static let sentAt = Date(timeIntervalSince1970: 1_700_000_000.468)

    static let file = FileInfo(
        conversationID: conversation, author: bob, seq: 4, fileID: FileID(bytes: [UInt8](repeating: 5, count: 32))!,
        name: "menu.txt", folder: "", mediaType: "text/plain", size: 11, width: 0, height: 0, heldBytes: 11,
        state: .complete)

    /// A message with every optional part a chat draws.
    static var message: ChatMessage {
        var message = ChatMessage(
            conversationID: conversation, author: alice, authorName: "You", seq: 3, isMine: true, text: "@bob yes",
            sentAt: sentAt, orderKey: DisplayOrderKey(clockSum: 5, timestamp: 1_700_000_000_468, author: alice, seq: 3),
            status: .delivered)
        message.editedAt = Date(timeIntervalSince1970: 1_700_000_060.469)
        message.edits = [.init(text: "@bob yse", writtenAt: sentAt)]
        message.replyTo = Quote(
            ref: MessageRef(author: bob, seq: 2), authorName: "bob", text: "pizza?", isDeleted: false, isHeld: true)
        message.mentions = [NamedPerson(id: bob, name: "bob")]
        message.reactions = [
            ReactionGroup(emoji: "👍", reactors: [NamedPerson(id: bob, name: "bob")], includesMe: false)
        ]
        message.file = file
        return message
    }

    static var summary: ConversationSummary {
        ConversationSummary(
            id: conversation, title: "Weekend", participants: [.init(id: bob, name: "bob", trust: .verified)],
            createdAt: sentAt, lastActivityAt: sentAt,
            lastMessage: .init(author: alice, isMine: true, text: "@bob yes", sentAt: sentAt, status: .sent),
            unreadCount: 2, isMarkedUnread: false, isPinned: true, isArchived: false, isMuted: false)
    }

    private func object(_ value: some Encodable) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(JSONOutput.line(value).utf8)) as? [String: Any])
    }

    private func keys(_ value: Any?) -> Set<String> {
        guard let object = value as? [String: Any] else { return [] }
        return Set(object.keys)
    }

    @Test func aMessageCarriesTheDocumentedFields() throws {
        let message = try object(Self.message)
        #expect(
            Set(message.keys) == [
                "conversationID", "author", "authorName", "seq", "isMine", "text", "sentAt", "orderKey", "status",
                "editedAt", "isDeleted", "edits", "replyTo", "mentions", "mentionsMe", "reactions", "file",
            ])
        #expect(keys(message["orderKey"]) == ["clockSum", "timestamp", "author", "seq"])
        #expect(keys(message["replyTo"]) == ["ref", "authorName", "text", "isDeleted", "isHeld"])
        #expect(keys((message["edits"] as? [Any])?.first) == ["text", "writtenAt"])
        #expect(keys((message["reactions"] as? [Any])?.first) == ["emoji", "reactors", "includesMe"])
        #expect(
            keys(message["file"]) == [
                "conversationID", "author", "seq", "fileID", "name", "folder", "mediaType", "size", "width", "height",
                "heldBytes", "state",
            ])
        #expect(message["sentAt"] as? String == "2023-11-14T22:13:20.468Z")
        #expect(message["conversationID"] as? String == Self.conversation.hex)
        // A system line: its change of members, and no text.
        var line = ChatMessage(
            conversationID: Self.conversation, author: Self.bob, authorName: "bob", seq: 6, isMine: false, text: nil,
            sentAt: Self.sentAt, orderKey: DisplayOrderKey(clockSum: 7, timestamp: 0, author: Self.bob, seq: 6),
            status: nil)
        line.membership = MembershipNote(added: [.init(id: Self.alice, name: "You")], removed: [], left: false)
        let system = try object(line)
        #expect(system["text"] == nil && system["status"] == nil)
        #expect(keys(system["membership"]) == ["added", "removed", "left"])
    }

    @Test func aSummaryAPeerAndMembersCarryTheDocumentedFields() throws {
        #expect(
            Set(try object(Self.summary).keys) == [
                "id", "title", "participants", "createdAt", "lastActivityAt", "lastMessage", "unreadCount",
                "isMarkedUnread", "isPinned", "isArchived", "isMuted", "forkedAuthors", "keyProblem", "isFormerMember",
            ])
        #expect(keys(try object(Self.summary)["lastMessage"]) == ["author", "isMine", "text", "sentAt", "status"])
        let peer = Peer(id: Self.bob, name: "bob", addedAt: Self.sentAt, address: "192.0.2.1:7461")
        #expect(Set(try object(peer).keys) == ["id", "name", "trust", "addedAt", "address"])
        let members = MemberList(
            conversation: Self.conversation, members: [.init(id: Self.alice, name: "You")], admin: Self.alice,
            former: [], includesMe: true)
        #expect(Set(try object(members).keys) == ["conversation", "members", "admin", "former", "includesMe"])
        let hit = SearchHit(conversation: Self.summary, message: Self.message, snippet: "«yes»")
        #expect(Set(try object(hit).keys) == ["conversation", "message", "snippet"])
        #expect(Set(try object(HistoryPage(messages: [], hasOlder: true)).keys) == ["messages", "hasOlder"])
    }

    private func roundTrip<Value: Codable & Equatable & Sendable>(_ value: Value) throws {
        let line = try JSONOutput.line(ControlResponse.success(value, id: 1))
        let back = try JSONOutput.decoder().decode(ControlResponse<Value>.self, from: Data(line.utf8))
        #expect(back.result == value, "\(line)")
    }

    @Test func everyAnswerIsReadBackAsItWent() throws {
        try roundTrip(HistoryPage(messages: [Self.message], hasOlder: true))
        try roundTrip([Self.summary])
        try roundTrip(Self.message)
        try roundTrip([SearchHit(conversation: Self.summary, message: Self.message, snippet: "«yes»")])
        try roundTrip([Self.file])
        try roundTrip([Peer(id: Self.bob, name: "bob", trust: .blocked, addedAt: Self.sentAt, lastSeenAt: Self.sentAt)])
        try roundTrip(SavedFile(path: "/tmp/menu.txt"))
        try roundTrip(TypingIndicators(false))
    }

    @Test func aMessageNotHeldTravelsAsNull() throws {
        let line = try JSONOutput.line(ControlResponse<ChatMessage?>.success(nil, id: 1))
        #expect(line == #"{"id":1,"ok":true,"result":null,"v":1}"#)
    }
}
