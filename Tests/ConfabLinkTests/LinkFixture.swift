import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNet
import ConfabNode
import ConfabTestSupport
import ConfabWire
import Foundation
import NIOConcurrencyHelpers
import NIOPosix

/// A person's first device offering a link on loopback, and what it reported, for the link
/// tests: the real offer, listener, handshake and store, nothing mocked.
final class OfferRun: Sendable {
    let profile: Profile
    let offer: LinkOffer
    let task: Task<Result<LinkOffer.Linked, LinkFailure>, Never>
    private let events: AsyncStream<LinkOffer.Event>
    init(
        name: String = "alice", code: LinkCode = .generate(), timeout: Duration = .seconds(60),
        answer: @escaping @Sendable (LinkPrompt) async -> Bool = { _ in true }
    ) throws {
        let directory = DataDirectory(url: try ConfabBinary.temporaryDirectory("link-offer"))
        let profile = try Profile.initialize(directory, name: name)
        let offer = try LinkOffer(profile: profile, networkKey: .default, code: code)
        let (events, continuation) = AsyncStream.makeStream(of: LinkOffer.Event.self)
        let prompts = NIOLockedValueBox<[LinkPrompt]>([])
        self.profile = profile
        self.offer = offer
        self.events = events
        self.prompts = prompts
        task = Task {
            do throws(LinkFailure) {
                return .success(
                    try await offer.run(
                        host: "127.0.0.1", timeout: timeout, group: MultiThreadedEventLoopGroup.singleton,
                        events: { continuation.yield($0) },
                        confirm: { prompt in
                            prompts.withLockedValue { $0.append(prompt) }
                            return await answer(prompt)
                        }))
            } catch {
                return .failure(error)
            }
        }
    }

    private let prompts: NIOLockedValueBox<[LinkPrompt]>

    var askedPrompts: [LinkPrompt] { prompts.withLockedValue { $0 } }

    /// The next event the offer reported.
    func next() async -> LinkOffer.Event? {
        var iterator = events.makeAsyncIterator()
        return await iterator.next()
    }

    /// The port, once it listens.
    func port() async throws -> Int {
        guard case .listening(let port)? = await next() else { throw LinkFailure(.local, "the offer did not listen") }
        return port
    }
}

enum LinkFixture {
    /// A data directory path for a new machine, not created.
    static func newDirectory() throws -> DataDirectory {
        DataDirectory(url: try ConfabBinary.temporaryDirectory("link-new").appendingPathComponent("data"))
    }

    static func join(
        _ code: LinkCode, port: Int, into directory: DataDirectory, name: String = "laptop",
        answer: @escaping @Sendable (LinkPrompt) async -> Bool = { _ in true },
        prompts: NIOLockedValueBox<[LinkPrompt]>? = nil
    ) async throws(LinkFailure) -> (join: LinkJoin, linked: LinkJoin.Linked) {
        let join = try LinkJoin(code: code, deviceName: name)
        let linked = try await join.run(
            host: "127.0.0.1", port: port, group: MultiThreadedEventLoopGroup.singleton, events: { _ in },
            confirm: { prompt in
                prompts?.withLockedValue { $0.append(prompt) }
                return await answer(prompt)
            },
            write: { grant, keys in
                try Profile.createLinked(directory, identity: join.device, grant: grant, keys: keys)
            })
        return (join, linked)
    }
}
