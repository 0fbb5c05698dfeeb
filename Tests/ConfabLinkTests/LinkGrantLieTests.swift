import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNet
import ConfabNode
import Foundation
import NIOPosix
import Testing

@testable import ConfabWire

/// Grants that lie (Protocol.md §20.10, step 5): an offer that knows the code and gets both
/// yeses, then hands over a list that is not what it must be. The new machine refuses each
/// with nothing written; the honest grant from the same offer links, so each refusal is the
/// lie's.
@Suite struct LinkGrantLieTests {
    enum Lie: String, CaseIterable, Sendable {
        case none
        /// P's list adding the device, its signature altered.
        case notSignedByThePerson
        /// A valid list of P that lists the device, but whose last entry adds another key.
        case addsAnotherKey
        /// A valid list of Q adding the device, given as P's.
        case anotherPersonsList
        /// P's list adding the device, signed by P, whose wraps open nothing for it.
        case wrapsOpenNothing
        /// A message one byte over the limit.
        case oversized
    }

    @Test(arguments: Lie.allCases) func aLyingGrantIsRefused(_ lie: Lie) async throws {
        let code = LinkCode.generate()
        let secrets = try LinkSecrets(code: code)
        let listener = try await LinkListener.listen(
            host: "127.0.0.1", port: 0, identity: secrets.offerKey, networkKey: secrets.networkKey,
            group: MultiThreadedEventLoopGroup.singleton, maxMessageBytes: LinkMessageCodec.maxMessageBytes)
        let offer = Task { try await Self.serve(listener, lie: lie) }
        let directory = try LinkFixture.newDirectory()
        let result: Result<(join: LinkJoin, linked: LinkJoin.Linked), LinkFailure>
        do throws(LinkFailure) {
            result = .success(try await LinkFixture.join(code, port: listener.port, into: directory))
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let (join, linked)):
            #expect(lie == .none, "the new machine took a grant that lies (\(lie))")
            #expect(try linked.profile.store.deviceList(of: linked.person).isDevice(NodeID(join.device.publicKey)))
        case .failure(let error):
            #expect(lie != .none, "the honest grant was refused: \(error)")
            #expect(error.kind == .invalid)
            #expect(!FileManager.default.fileExists(atPath: directory.path))
        }
        try await offer.value
        await listener.close()
    }

    /// The offer's half of the dialogue, up to the grant, which it writes as `lie` says.
    static func serve(_ listener: LinkListener, lie: Lie) async throws {
        for await attempt in listener.attempts {
            guard case .connected(let connection) = attempt else { continue }
            guard let first = try await connection.receive(),
                case .request(let name) = try LinkMessageCodec.decode(first)
            else { throw LinkFailure(.invalid, "no request") }
            try await connection.send(LinkMessageCodec.encode(.confirm))
            guard let second = try await connection.receive(), case .confirm = try LinkMessageCodec.decode(second)
            else { throw LinkFailure(.invalid, "no confirm") }
            let person = SigningKeyPair.generate()
            let other = SigningKeyPair.generate()
            var entries: [[UInt8]]
            switch lie {
            case .none, .notSignedByThePerson, .oversized:
                entries = [try entry(adding: connection.remote, name: name, by: person)]
            case .addsAnotherKey:
                entries = try list(
                    adding: [connection.remote, NodeID(SigningKeyPair.generate().publicKey)], by: person)
            case .anotherPersonsList:
                entries = [try entry(adding: connection.remote, name: name, by: other)]
            case .wrapsOpenNothing:
                let encryption = Curve25519KeyPair.generate()
                let keys = DeviceKeys(
                    encryptionKey: encryption.publicKey, ephemeral: Curve25519KeyPair.generate().publicKey,
                    wraps: Random.bytes(2 * DeviceKeys.wrapLength))
                entries = [
                    DeviceEntryCodec.encode(
                        DeviceEntryCodec.sign(
                            person: person, seq: 1, previous: nil, timestamp: 1_800_000_000_000, keys: keys,
                            change: .add(device: connection.remote, name: name)))
                ]
            }
            if lie == .notSignedByThePerson {
                entries[0][entries[0].count - 1] ^= 0x01
            }
            let grant = LinkGrant(
                person: NodeID(person.publicKey), deviceEntries: entries, displayName: "alice",
                networkKey: NetworkKey.default.bytes, keyMessages: 0)
            if lie == .oversized {
                try? await connection.send([UInt8](repeating: 0, count: LinkMessageCodec.maxMessageBytes + 1))
            } else {
                try await connection.send(LinkMessageCodec.encode(.grant(grant)))
            }
            _ = try? await connection.receive()
            await connection.close()
            return
        }
    }

    static func list(adding devices: [NodeID], by person: SigningKeyPair) throws -> [[UInt8]] {
        var list = DeviceList(person: NodeID(person.publicKey))
        for (index, device) in devices.enumerated() {
            try list.append(
                try DeviceListWriter.add(
                    device, name: "device \(index + 1)", to: list, person: person, timestamp: 1_800_000_000_000))
        }
        return list.entries.map(DeviceEntryCodec.encode)
    }

    static func entry(adding device: NodeID, name: String, by person: SigningKeyPair) throws -> [UInt8] {
        let list = DeviceList(person: NodeID(person.publicKey))
        return DeviceEntryCodec.encode(
            try DeviceListWriter.add(device, name: name, to: list, person: person, timestamp: 1_800_000_000_000))
    }
}
