import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabStore
import Foundation
import Testing

@testable import ConfabNode

/// The control socket's JSON (Protocol.md §13): typed requests that survive the trip, a
/// version every request carries, and every time in RFC 3339.
@Suite struct ControlProtocolTests {
    static let peer = PeerPresence(
        id: NodeID(bytes: [UInt8](repeating: 7, count: 32))!, name: "bob", online: true, connected: true,
        address: "192.0.2.1:7461", lastSeen: Date(timeIntervalSince1970: 1_700_000_000.5), role: .person,
        trust: .unverified)
    static let conversation = ConversationID(bytes: [UInt8](repeating: 9, count: 16))!
    static let rfc3339 = #""lastSeen":"2023-11-14T22:13:20.500Z""#

    /// A key that is a point on the curve (`add_peer` refuses one that is not).
    static let realKey = NodeID(SigningKeyPair.generate().publicKey)
    static let file = FileID(bytes: [UInt8](repeating: 5, count: 32))!
    static let orderKey = DisplayOrderKey(clockSum: 12, timestamp: 1_700_000_000_500, author: peer.id, seq: 3)

    /// At least one of every operation (`OperationMethod`), and watch.
    static let everyRequest: [ControlRequest] =
        ([
            Operations.Status(), Operations.Peers(), Operations.Send(text: "hi", to: .conversation(conversation)),
            Operations.SendLines(texts: ["one", "two \"quoted\"\n"], to: conversation),
            Operations.Send(text: "first", to: .newConversation(with: peer.id)),
            Operations.Create(participants: [peer.id], title: "plans", firstMessage: nil),
            Operations.MarkRead(conversation), Operations.SetFlag(.pinned, true, on: conversation),
            Operations.Delete(conversation), Operations.SetTrust(.blocked, for: peer.id),
            Operations.Changed(conversation),
            Operations.Resync(), Operations.Edit(conversation: conversation, target: 2, text: "fixed"),
            Operations.Unsend(conversation: conversation, target: 2), Operations.Typing(conversation, active: true),
            Operations.Typing(conversation, active: false),
            Operations.Send(text: "yes", to: .conversation(conversation), replyTo: MessageRef(author: peer.id, seq: 3)),
            Operations.React(
                conversation: conversation, message: MessageRef(author: peer.id, seq: 3), emoji: "👍", remove: false),
            Operations.React(
                conversation: conversation, message: MessageRef(author: peer.id, seq: 3), emoji: "👍", remove: true),
            Operations.ChangeMembers(conversation: conversation, add: [peer.id], remove: [], history: true),
            Operations.ChangeMembers(conversation: conversation, add: [], remove: [peer.id], history: false),
            Operations.Leave(conversation),
            Operations.SendFile(path: "/tmp/a b.txt", folder: "", to: .conversation(conversation)),
            Operations.SendFile(path: "/tmp/x", folder: "photos/2024", to: .newConversation(with: peer.id)),
            Operations.AcceptFile(file),
            Operations.Conversations(), Operations.Conversations(.all, limit: 20),
            Operations.Conversation(conversation),
            Operations.History(conversation), Operations.History(conversation, .before(orderKey), limit: 30),
            Operations.History(conversation, .around(MessageRef(author: peer.id, seq: 3))),
            Operations.Message(MessageRef(author: peer.id, seq: 3), in: conversation),
            Operations.LastOwnMessage(conversation), Operations.Search("pizza «tonight»", limit: 10),
            Operations.Members(of: conversation), Operations.Files(),
            Operations.Files(in: conversation, matching: "ab12"),
            Operations.KnownPeers(), Operations.SaveFile(file, into: "/tmp/saved files"), Operations.TypingSetting(),
            Operations.TypingSetting(false), Operations.Join(RoomName(exactly: "general")!), Operations.Rooms(),
            Operations.SafetyNumberWith(peer.id), Operations.AddPeer(realKey, name: "Bob from accounts"),
            Operations.SetName("Robert"), Operations.Doctor(), Operations.Doctor(seconds: 1.5),
            Operations.Devices(), Operations.RemoveDevice(peer.id), Operations.OfferLink(),
            Operations.ConfirmLink(id: "00ff00ff00ff00ff", yes: true), Operations.ConfirmLink(yes: false),
            Operations.CancelLink(id: "00ff00ff00ff00ff"), Operations.CancelLink(),
        ] as [any ConfabOperation]).map { ControlRequest.operation($0) } + [.watch(nil), .watch(conversation)]

    @Test func everyMethodIsCoveredAndNamesItsOwnType() {
        let covered = Set(Self.everyRequest.map(\.method))
        for method in OperationMethod.allCases {
            #expect(method.operation.method == method)
            #expect(covered.contains(method.rawValue), "no request of \(method.rawValue) in everyRequest")
        }
    }

    private func decode(_ line: String) throws -> ControlEnvelope {
        try JSONOutput.decoder().decode(ControlEnvelope.self, from: Data(line.utf8))
    }

    @Test(arguments: everyRequest) func everyRequestComesBackAsItWent(_ request: ControlRequest) throws {
        let envelope = ControlEnvelope(id: 3, request: request)
        #expect(try decode(JSONOutput.line(envelope)) == envelope)
    }

    @Test func idsTravelAsHexAndFlagsByName() throws {
        let line = try JSONOutput.line(
            ControlEnvelope(id: 1, operation: Operations.SetFlag(.markedUnread, false, on: Self.conversation)))
        #expect(
            line
                == #"{"id":1,"method":"set_flag","params":{"conversation":"\#(Self.conversation.hex)","flag":"markedUnread","value":false},"v":1}"#
        )
    }

    @Test func editAndUnsendNameTheMessageBySeq() throws {
        let line = try JSONOutput.line(
            ControlEnvelope(id: 2, operation: Operations.Edit(conversation: Self.conversation, target: 4, text: "new")))
        #expect(
            line
                == #"{"id":2,"method":"edit","params":{"conversation":"\#(Self.conversation.hex)","target":4,"text":"new"},"v":1}"#
        )
        #expect(throws: ControlEnvelope.Malformed.self) {
            try decode(#"{"v":1,"method":"unsend","params":{"conversation":"\#(Self.conversation.hex)"}}"#)
        }
    }

    @Test func repliesAndReactionsNameTheMessageByAuthorAndSeq() throws {
        let ref = MessageRef(author: Self.peer.id, seq: 5)
        let line = try JSONOutput.line(
            ControlEnvelope(
                id: 4,
                operation: Operations.React(conversation: Self.conversation, message: ref, emoji: "🎉", remove: false)))
        #expect(
            line
                == #"{"id":4,"method":"react","params":{"conversation":"\#(Self.conversation.hex)","emoji":"🎉","message":{"author":"\#(Self.peer.id.hex)","seq":5},"remove":false},"v":1}"#
        )
        let reply = try decode(
            #"{"v":1,"method":"send","params":{"conversation":"\#(Self.conversation.hex)","text":"ok","replyTo":{"author":"\#(Self.peer.id.hex)","seq":5}}}"#
        )
        #expect(
            reply.request == .operation(Operations.Send(text: "ok", to: .conversation(Self.conversation), replyTo: ref))
        )
        // "remove" may be left out; the message and the emoji may not.
        let added = try decode(
            #"{"v":1,"method":"react","params":{"conversation":"\#(Self.conversation.hex)","emoji":"🎉","message":{"author":"\#(Self.peer.id.hex)","seq":5}}}"#
        )
        #expect(
            added.request
                == .operation(
                    Operations.React(conversation: Self.conversation, message: ref, emoji: "🎉", remove: false)))
        #expect(throws: ControlEnvelope.Malformed.self) {
            try decode(#"{"v":1,"method":"react","params":{"conversation":"\#(Self.conversation.hex)","emoji":"🎉"}}"#)
        }
        #expect(throws: ControlEnvelope.Malformed.self) {
            try decode(
                #"{"v":1,"method":"react","params":{"conversation":"\#(Self.conversation.hex)","message":{"author":"\#(Self.peer.id.hex)","seq":5}}}"#
            )
        }
    }

    @Test func aRequestWithoutTheVersionIsRefusedSayingWhy() throws {
        #expect(throws: ControlEnvelope.Malformed.self) { try decode(#"{"id":1,"method":"status"}"#) }
        do {
            _ = try decode(#"{"v":2,"method":"status"}"#)
            Issue.record("version 2 was accepted")
        } catch {
            #expect(ControlServer.describe(error).contains("version 1, the request is version 2"))
        }
    }

    @Test func malformedRequestsSayWhatIsWrong() {
        let cases = [
            (#"{"v":1,"method":"launch"}"#, #"unknown method "launch""#),
            (#"{"v":1,"method":"send","params":{"text":"hi"}}"#, "exactly one of params conversation and peer"),
            (#"{"v":1,"method":"set_trust","params":{"peer":"bob","trust":"blocked"}}"#, "params.peer"),
            (#"{"v":1,"method":"set_flag","params":{"flag":"starred","value":true}}"#, "flag, one of archived"),
            ("not json", "not a JSON request"),
            (#"{"v":1,"method":"send_lines","params":{"texts":["a"]}}"#, "send_lines needs param conversation"),
            (
                #"{"v":1,"method":"send_lines","params":{"conversation":"09090909090909090909090909090909","texts":[]}}"#,
                "at least one text"
            ),
            (#"{"v":1,"method":"conversations","params":{"filter":"starred"}}"#, "filter is inbox, archived or all"),
            (#"{"v":1,"method":"conversations","params":{"limit":0}}"#, "limit is 1 or more"),
            (#"{"v":1,"method":"history","params":{}}"#, "history needs param conversation"),
            (
                #"{"v":1,"method":"history","params":{"conversation":"\#(Self.conversation.hex)","limit":501}}"#,
                "history's param limit is 1 to 500"
            ),
            (
                #"{"v":1,"method":"history","params":{"conversation":"\#(Self.conversation.hex)","around":{"author":"\#(Self.peer.id.hex)","seq":3},"before":{"author":"\#(Self.peer.id.hex)","clockSum":1,"seq":3,"timestamp":0}}}"#,
                "at most one of params before and around"
            ),
            (
                #"{"v":1,"method":"history","params":{"conversation":"\#(Self.conversation.hex)","around":{"author":"\#(Self.peer.id.hex)","seq":3},"limit":5}}"#,
                "limit only without around"
            ),
            (
                #"{"v":1,"method":"message","params":{"conversation":"\#(Self.conversation.hex)"}}"#,
                "message needs param message"
            ),
            (#"{"v":1,"method":"search","params":{"query":"a","limit":1000}}"#, "search's param limit is 1 to 500"),
            (#"{"v":1,"method":"files","params":{"prefix":"not hex"}}"#, "prefix is 1 to 64 hex digits"),
            (
                #"{"v":1,"method":"save_file","params":{"file":"\#(Self.file.hex)","folder":"Downloads"}}"#,
                "absolute folder"
            ),
            (#"{"v":1,"method":"add_peer","params":{"peer":"\#(Self.realKey.hex)","name":" "}}"#, "name needs 1 to 64"),
            (
                #"{"v":1,"method":"add_peer","params":{"peer":"\#(Self.realKey.hex)","name":"\#(Self.peer.id.hex)"}}"#,
                "could be taken for a key"
            ),
            (
                #"{"v":1,"method":"add_peer","params":{"peer":"\#(Self.peer.id.hex)","name":"x"}}"#,
                "not a valid Confab key"
            ),
            (#"{"v":1,"method":"doctor","params":{"seconds":60}}"#, "doctor's param seconds is 1 to 10"),
        ]
        for (line, reason) in cases {
            do {
                _ = try decode(line)
                Issue.record("accepted \(line)")
            } catch {
                #expect(ControlServer.describe(error).contains(reason), "\(line): \(ControlServer.describe(error))")
            }
        }
    }

    @Test func peersResultAndPeerEventsCarryRFC3339Times() throws {
        let result = try JSONOutput.line(ControlResponse.success([Self.peer], id: 1))
        #expect(result.contains(Self.rfc3339))
        for event in [NodeEvent.peerOnline(Self.peer), .peerOffline(Self.peer)] {
            #expect(try JSONOutput.line(ControlEvent(event)).contains(Self.rfc3339))
        }
        #expect(JSONOutput.timestamp(Self.peer.lastSeen!) == "2023-11-14T22:13:20.500Z")
    }

    @Test func clientsReadResultsAndEventsBack() throws {
        let line = try JSONOutput.line(ControlResponse.success([Self.peer], id: 1))
        let response = try JSONOutput.decoder().decode(ControlResponse<[PeerPresence]>.self, from: Data(line.utf8))
        #expect(response.result == [Self.peer] && response.v == ControlEnvelope.version)
        for event in [
            NodeEvent.peerOnline(Self.peer), .status(conversation: Self.conversation, seq: 4, status: .read),
            .changed(nil), .changed(Self.conversation),
            .typing(TypingEvent(conversation: Self.conversation, peer: Self.peer.id, name: "bob", active: true)),
        ] {
            let wire = try JSONOutput.decoder().decode(
                ControlEvent.self, from: Data(JSONOutput.line(ControlEvent(event)).utf8))
            #expect(wire == ControlEvent(event))
        }
        // RFC 3339 without a fraction is read too.
        let whole = try JSONOutput.decoder().decode(
            PeerPresence.self,
            from: Data(
                #"{"id":"\#(Self.peer.id.hex)","name":"bob","online":false,"connected":false,"lastSeen":"2023-11-14T22:13:20Z","role":"person"}"#
                    .utf8))
        #expect(whole.lastSeen == Date(timeIntervalSince1970: 1_700_000_000))
    }

    /// A web page draws the link dialog from these alone; the longest name and words a link
    /// allows still make an event of under 1 KB, as every event the web app gets.
    @Test func linkEventsComeBackWithTheirFieldsAndStayUnderAKilobyte() throws {
        let name = String(repeating: "é", count: Limits.maxNameBytes / 2)
        let words = ["abandon", "ability", "absolute", "academic", "accident"]
        for progress in [
            LinkProgress(id: "00ff00ff00ff00ff", state: .words, name: name, device: Self.peer.id, words: words),
            LinkProgress(id: "00ff00ff00ff00ff", state: .linked, name: name, device: Self.peer.id),
            LinkProgress(
                id: "00ff00ff00ff00ff", state: .failed,
                message: "the other machine refused (\(String(repeating: "x", count: 200))): nothing was linked"),
        ] {
            let line = try JSONOutput.line(ControlEvent(.link(progress)))
            #expect(line.utf8.count < 1024)
            let wire = try JSONOutput.decoder().decode(ControlEvent.self, from: Data(line.utf8))
            #expect(wire.event == .link && wire.link == progress)
            let store = try ConfabStore.inMemory(identity: .generate())
            #expect(wire.nodeEvent(store: store) == .link(progress))
        }
        let line = try JSONOutput.line(
            ControlEvent(
                .link(LinkProgress(id: "ab", state: .words, name: "laptop", device: Self.peer.id, words: ["a", "b"]))))
        #expect(
            line
                == #"{"event":"link","link":{"device":"\#(Self.peer.id.hex)","id":"ab","name":"laptop","state":"words","words":["a","b"]}}"#
        )
    }

    @Test func typingTravelsAsAConversationAndABoolean() throws {
        let request = try JSONOutput.line(
            ControlEnvelope(id: 5, operation: Operations.Typing(Self.conversation, active: true)))
        #expect(
            request
                == #"{"id":5,"method":"typing","params":{"conversation":"\#(Self.conversation.hex)","value":true},"v":1}"#
        )
        let event = try JSONOutput.line(
            ControlEvent(
                .typing(TypingEvent(conversation: Self.conversation, peer: Self.peer.id, name: "bob", active: false))))
        #expect(
            event
                == #"{"active":false,"author":"\#(Self.peer.id.hex)","authorName":"bob","conversation":"\#(Self.conversation.hex)","event":"typing"}"#
        )
    }

    @Test func statusSaysRunningAsABoolean() throws {
        let status = NodeStatus(
            id: Self.peer.id, name: "me", role: .person, listen: "127.0.0.1:1", discovery: false, sessions: [],
            outbox: 2, outstanding: 0)
        let line = try JSONOutput.line(status)
        #expect(line.contains(#""running":true"#) && line.contains(#""outbox":2"#))
    }
}
