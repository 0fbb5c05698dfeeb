import ConfabModel
import Foundation
import Testing

@testable import ConfabNode

/// The control socket's JSON (Protocol.md §13): every time is RFC 3339 in UTC with
/// milliseconds, like the CLI's `--json` output, never Foundation's default number.
@Suite struct ControlJSONTests {
    static let peer = PeerPresence(
        id: NodeID(bytes: [UInt8](repeating: 7, count: 32))!, name: "bob", online: true, connected: true,
        address: "192.0.2.1:7461", lastSeen: Date(timeIntervalSince1970: 1_700_000_000.5), role: "person",
        trust: "unverified")
    static let rfc3339 = #""lastSeen":"2023-11-14T22:13:20.500Z""#

    @Test func peersResultAndPeerEventsCarryRFC3339Times() throws {
        let result = try JSONOutput.line(ControlProtocol.Response(id: 1, ok: true, result: [Self.peer]))
        #expect(result.contains(Self.rfc3339))
        for event in [NodeEvent.peerOnline(Self.peer), .peerOffline(Self.peer)] {
            let line = try JSONOutput.line(ControlProtocol.event(event))
            #expect(line.contains(Self.rfc3339))
        }
        // The CLI's own times have the same form.
        #expect(JSONOutput.timestamp(Self.peer.lastSeen!) == "2023-11-14T22:13:20.500Z")
    }

    @Test func clientsReadTheTimesBack() throws {
        let line = try JSONOutput.line(ControlProtocol.Response(id: 1, ok: true, result: [Self.peer]))
        let response = try JSONOutput.decoder().decode(
            ControlProtocol.Response<[PeerPresence]>.self, from: Data(line.utf8))
        #expect(response.result == [Self.peer])
        let event = try JSONOutput.decoder().decode(
            ControlProtocol.Event.self, from: Data(JSONOutput.line(ControlProtocol.event(.peerOnline(Self.peer))).utf8))
        #expect(event.peer == Self.peer)
        // RFC 3339 without a fraction is read too.
        let whole = try JSONOutput.decoder().decode(
            PeerPresence.self,
            from: Data(
                #"{"id":"\#(Self.peer.id.hex)","name":"bob","online":false,"connected":false,"lastSeen":"2023-11-14T22:13:20Z","role":"person"}"#
                    .utf8))
        #expect(whole.lastSeen == Date(timeIntervalSince1970: 1_700_000_000))
    }
}
