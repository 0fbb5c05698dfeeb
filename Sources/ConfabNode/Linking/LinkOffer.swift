import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNet
import ConfabStore
import ConfabWire
import Foundation
import NIOCore
import NIOPosix

/// `confab devices link`: a one-time offer that adds one new machine to this person's devices
/// (Protocol.md §20.10). It listens under the code's network key and the offer's key, and
/// ends after a link, after its time, after three tries that fail, or at once when either
/// person says no (the code may be known to someone else then).
public struct LinkOffer: Sendable {
    public static let maxFailures = 3
    public static let defaultTimeout: Duration = .seconds(300)

    public let code: LinkCode
    public let secrets: LinkSecrets
    let profile: Profile
    let networkKey: NetworkKey

    /// What happens along the way, for the person watching.
    public enum Event: Sendable, Equatable {
        case listening(port: Int)
        /// A handshake failed a check: a wrong code or a replayed message.
        case triedAndFailed(remaining: Int, reason: String)
        case connected(from: String?)
        case words(LinkPrompt)
    }

    /// What a successful link added.
    public struct Linked: Sendable, Equatable {
        public let device: NodeID
        public let name: String
        public let person: String
    }

    /// Only a device whose key is its person key writes the person's list.
    public init(profile: Profile, networkKey: NetworkKey, code: LinkCode = .generate()) throws(LinkFailure) {
        let linked: NodeID?
        do {
            linked = try profile.store.linkedPerson()
        } catch {
            throw LinkFailure(.local, "cannot read this device's store: \(error)")
        }
        if let linked {
            throw LinkFailure(
                .notAllowed,
                "this device was linked to \(linked.shortHex) and holds only its own key; "
                    + "link new machines from a device that holds the person key (the first one)")
        }
        self.profile = profile
        self.networkKey = networkKey
        self.code = code
        do {
            secrets = try LinkSecrets(code: code)
        } catch {
            throw LinkFailure(.local, "cannot derive the link secrets: \(error)")
        }
    }

    /// This machine's IPv4 addresses other than loopback: where a new machine may reach an
    /// offer (`--peer`).
    public static var localAddresses: [String] {
        NetworkInterface.current().filter { $0.isUp && !$0.isLoopback }.flatMap(\.ipv4)
            .map { NetworkInterface.IPv4.dotted($0.address) }
    }

    /// Listens, and runs link dialogues one at a time until one links or the offer ends.
    public func run(
        host: String = "0.0.0.0", port: Int = 0, timeout: Duration = defaultTimeout, discovery: LinkDiscovery? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, events: @escaping @Sendable (Event) -> Void,
        confirm: @escaping LinkConfirmation
    ) async throws(LinkFailure) -> Linked {
        let listener: LinkListener
        do {
            listener = try await LinkListener.listen(
                host: host, port: port, identity: secrets.offerKey, networkKey: secrets.networkKey, group: group,
                maxMessageBytes: LinkMessageCodec.maxMessageBytes)
        } catch {
            throw LinkFailure(.local, "cannot listen on port \(port): \(ConnectFailure.describe(error))")
        }
        var beacons: DiscoveryService?
        if let discovery {
            do {
                beacons = try await discovery.announce(secrets, tcpPort: listener.port, group: group)
            } catch {
                await listener.close()
                throw LinkFailure(
                    .local,
                    "cannot send beacons on UDP port \(discovery.port) (\(error)); try --no-discovery, "
                        + "and --peer on the new machine")
            }
        }
        events(.listening(port: listener.port))
        let result: Result<Linked, LinkFailure> = await withTaskGroup(of: Result<Linked, LinkFailure>?.self) { tasks in
            tasks.addTask {
                do throws(LinkFailure) {
                    return .success(try await serve(listener, events: events, confirm: confirm))
                } catch {
                    return .failure(error)
                }
            }
            tasks.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled ? nil : .failure(LinkFailure(.offerEnded, "the offer expired: nobody linked"))
            }
            var first: Result<Linked, LinkFailure> = .failure(LinkFailure(.offerEnded, "the offer was cancelled"))
            for await result in tasks {
                guard let result else { continue }
                first = result
                break
            }
            tasks.cancelAll()
            await listener.close()
            return first
        }
        await beacons?.stop()
        return try result.get()
    }

    private func serve(
        _ listener: LinkListener, events: @escaping @Sendable (Event) -> Void, confirm: @escaping LinkConfirmation
    ) async throws(LinkFailure) -> Linked {
        var failures = 0
        for await attempt in listener.attempts {
            switch attempt {
            case .abandoned:
                continue
            case .refused(let reason):
                failures += 1
                if failures >= Self.maxFailures {
                    throw LinkFailure(
                        .offerEnded, "the offer ended after \(failures) failed tries (a wrong code each time?)")
                }
                events(.triedAndFailed(remaining: Self.maxFailures - failures, reason: reason))
            case .connected(let connection):
                events(.connected(from: connection.remoteAddress))
                return try await link(connection, events: events, confirm: confirm)
            }
        }
        throw LinkFailure(.offerEnded, "the offer was cancelled")
    }

    /// One dialogue, to its end: the request, both answers, the list entry, the grant.
    private func link(
        _ connection: LinkConnection, events: @escaping @Sendable (Event) -> Void, confirm: @escaping LinkConfirmation
    ) async throws(LinkFailure) -> Linked {
        defer { Task { await connection.close() } }
        guard case .request(let name) = try await LinkDialogue.receive(on: connection) else {
            throw LinkFailure(.invalid, "the new machine did not start with its request")
        }
        let device = connection.remote
        let prompt = LinkPrompt(
            deviceName: name, device: device,
            words: LinkWords.words(transcriptHash: connection.transcriptHash, client: device, server: secrets.offer))
        events(.words(prompt))
        try await LinkDialogue.agree(prompt, confirm: confirm, on: connection)
        let grant: LinkGrant
        let keyMessages: [[LinkEpochKey]]
        do {
            _ = try profile.store.addMyDevice(device, name: name)
            // Before the keys are read, so the personal conversation's goes with them (§20.15).
            try profile.store.ensurePersonalConversation()
            let list = try profile.store.deviceList(of: profile.me)
            let keys = try profile.store.epochKeys()
            keyMessages = stride(from: 0, to: keys.count, by: LinkMessageCodec.maxKeysPerMessage).map {
                Array(keys[$0..<min($0 + LinkMessageCodec.maxKeysPerMessage, keys.count)])
            }
            guard keyMessages.count <= LinkMessageCodec.maxKeyMessages else {
                throw LinkFailure(.local, "\(keys.count) conversation keys are more than one link carries")
            }
            grant = LinkGrant(
                person: profile.me, deviceEntries: list.entries.map(DeviceEntryCodec.encode),
                displayName: try profile.displayName(), networkKey: networkKey.bytes, keyMessages: keyMessages.count)
        } catch let failure as LinkFailure {
            throw failure
        } catch {
            throw LinkFailure(.local, "cannot add the device to this person's list: \(error)")
        }
        let encoded = LinkMessageCodec.encode(.grant(grant))
        guard encoded.count <= LinkMessageCodec.maxMessageBytes else {
            throw LinkFailure(.local, "the device list is too large for one link message")
        }
        try await LinkDialogue.send(.grant(grant), on: connection)
        for keys in keyMessages { try await LinkDialogue.send(.keys(keys), on: connection) }
        guard case .done = try await LinkDialogue.receive(on: connection) else {
            throw LinkFailure(.invalid, "the new machine did not say it was done")
        }
        return Linked(device: device, name: name, person: grant.displayName)
    }
}
