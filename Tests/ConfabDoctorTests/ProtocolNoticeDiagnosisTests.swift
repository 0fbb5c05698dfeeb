import ConfabClient
import ConfabModel
import Testing

@testable import ConfabNode

/// Protocol.md §12.1: the doctor says what peers on other protocol versions cost, in the
/// words `peers` and the chats use — from the running node's sessions where it had one,
/// else from the version their beacons say.
@Suite("Doctor: protocol versions") struct ProtocolNoticeDiagnosisTests {
    @Test func peersOnOtherVersionsAreNamedFromSessionsAndBeacons() throws {
        let bob = String(repeating: "b0", count: 32)
        let carol = String(repeating: "c0", count: 32)
        let dave = String(repeating: "d0", count: 32)
        let heard: [DoctorFacts.HeardNode] = [
            .init(id: bob, name: "bob", address: "10.0.0.2:7461", role: "person", version: 1),
            .init(id: carol, name: "carol", address: "10.0.0.3:7461", role: "person", version: 2),
            .init(id: dave, name: nil, address: "10.0.0.4:7461", role: "person", version: 1),
        ]
        // Dave's session said more than his beacon: a version that no longer syncs.
        var davePresence = PeerPresence(
            id: try #require(NodeID(hex: dave)), name: "dave", online: true, connected: false, address: nil,
            lastSeen: nil, role: .person)
        davePresence.protocolVersion = 4
        davePresence.oldestProtocolVersion = 3
        let notices = Doctor.protocolNotices(presence: [davePresence], heard: heard)
        #expect(
            notices == [
                "dave runs a newer Confab (protocol 4) that no longer talks to this one (protocol 2); "
                    + "messages to dave wait until you upgrade",
                "bob runs an older Confab (protocol 1): conversations bob starts wait until bob upgrades, and bob "
                    + "does not see edits, reactions, files or member changes",
            ])
        var facts = DiagnosisTests.facts()
        facts.protocolNotices = notices
        let finding = try #require(
            Diagnosis(facts).findings.first { if case .otherProtocol = $0 { true } else { false } })
        #expect(finding.code == "other-protocol")
        #expect(finding.severity == .warning)
        #expect(finding.message.contains("bob runs an older Confab (protocol 1)"))
    }
}
