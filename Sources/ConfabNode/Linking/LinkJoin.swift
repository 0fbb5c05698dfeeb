import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNet
import ConfabWire
import Foundation
import NIOCore
import NIOPosix

/// `confab init --link CODE`: the new machine's side of a link (Protocol.md §20.10). Its
/// device key is made first and lives only in memory until the grant has been checked;
/// the data directory is written only then, so a link that fails leaves nothing.
public struct LinkJoin: Sendable {
    public let code: LinkCode
    public let device: SigningKeyPair
    public let deviceName: String
    let secrets: LinkSecrets

    public enum Event: Sendable, Equatable {
        case connecting(host: String, port: Int)
        case words(LinkPrompt)
    }

    /// What a successful link gave.
    public struct Linked: Sendable {
        public let profile: Profile
        public let person: NodeID
        public let personName: String
        public let networkKey: NetworkKey
    }

    public init(code: LinkCode, deviceName: String, device: SigningKeyPair = .generate()) throws(LinkFailure) {
        do throws(LinkMessageCodec.Failure) {
            try LinkMessageCodec.checkName(deviceName, what: "device name")
        } catch {
            throw LinkFailure(.local, "\(error); choose another with --name")
        }
        self.code = code
        self.deviceName = deviceName
        self.device = device
        do {
            secrets = try LinkSecrets(code: code)
        } catch {
            throw LinkFailure(.local, "cannot derive the link secrets: \(error)")
        }
    }

    /// Where the offer listens, from its beacons (Protocol.md §20.10); fails with what to
    /// check when none is heard within `timeout`.
    public func find(
        discovery: LinkDiscovery, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        timeout: Duration = .seconds(10)
    ) async throws(LinkFailure) -> HostPort {
        let found: HostPort?
        do {
            found = try await discovery.find(secrets, device: device, group: group, timeout: timeout)
        } catch {
            throw LinkFailure(
                .unreachable,
                "cannot listen for beacons on UDP port \(discovery.port) (\(error)); "
                    + "give the offer's address (HOST:PORT) as \"confab devices link\" prints it")
        }
        guard let found else {
            throw LinkFailure(
                .unreachable,
                "no offer with this code was heard on the LAN within \(timeout.components.seconds) s. "
                    + "Is \"confab devices link\" (or the web app's Link a new machine) running there, with the "
                    + "same code? Beacons (UDP port "
                    + "\(discovery.port)) may be blocked by a firewall or not cross to another subnet: "
                    + "\"confab doctor\" checks both. Or give the address it prints (HOST:PORT)")
        }
        return found
    }

    /// Connects to the offer at `host:port`, runs the dialogue, checks the grant, and writes
    /// the data directory with `write` (given the checked grant and keys).
    public func run(
        host: String, port: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        timeout: TimeAmount = .seconds(10),
        events: @escaping @Sendable (Event) -> Void, confirm: @escaping LinkConfirmation,
        write: (LinkGrant, [LinkEpochKey]) throws -> Profile
    ) async throws(LinkFailure) -> Linked {
        events(.connecting(host: host, port: port))
        let connection: LinkConnection
        do {
            connection = try await LinkDialer.connect(
                host: host, port: port, identity: device, networkKey: secrets.networkKey, offer: secrets.offer,
                group: group, timeout: timeout, maxMessageBytes: LinkMessageCodec.maxMessageBytes)
        } catch {
            switch error {
            case .unreachable(let why):
                throw LinkFailure(
                    .unreachable,
                    "cannot reach the offer at \(host):\(port) (\(why)). Is \"confab devices link\" (or the "
                        + "web app's Link a new machine) still open there, and is its TCP port reachable from here "
                        + "(a firewall, another subnet)? "
                        + "\"confab doctor\" checks both. Check the address (HOST:PORT) it prints")
            case .handshakeFailed:
                throw LinkFailure(
                    .codeRefused,
                    "the offer at \(host):\(port) did not accept the code (connection closed during the "
                        + "handshake): the code is wrong or has expired. Check it, or start a new offer; "
                        + "an offer allows only \(LinkOffer.maxFailures) wrong tries")
            }
        }
        defer { Task { await connection.close() } }
        try await LinkDialogue.send(.request(deviceName: deviceName), on: connection)
        let me = NodeID(device.publicKey)
        let prompt = LinkPrompt(
            deviceName: deviceName, device: me,
            words: LinkWords.words(transcriptHash: connection.transcriptHash, client: me, server: secrets.offer))
        events(.words(prompt))
        try await LinkDialogue.agree(prompt, confirm: confirm, on: connection)
        guard case .grant(let grant) = try await LinkDialogue.receive(on: connection) else {
            throw LinkFailure(.invalid, "the other machine did not send the grant; nothing was written")
        }
        do {
            _ = try LinkGrantCheck.check(grant, device: device)
        } catch {
            throw LinkFailure(.invalid, "the grant does not check (\(error)); nothing was written")
        }
        var keys: [LinkEpochKey] = []
        for _ in 0..<grant.keyMessages {
            guard case .keys(let more) = try await LinkDialogue.receive(on: connection) else {
                throw LinkFailure(.invalid, "the other machine did not send the keys it announced; nothing was written")
            }
            keys += more
        }
        let profile: Profile
        do {
            profile = try write(grant, keys)
        } catch {
            throw LinkFailure(.local, "cannot write the new data directory: \(error)")
        }
        try await LinkDialogue.send(.done, on: connection)
        return Linked(
            profile: profile, person: grant.person, personName: grant.displayName,
            networkKey: NetworkKey(bytes: grant.networkKey)!)
    }
}
