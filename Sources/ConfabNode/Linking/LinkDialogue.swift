import ConfabModel
import ConfabNet
import ConfabWire

/// The steps both sides of a link share (Protocol.md §20.10): messages read and checked,
/// and the person's answer raced against the other side's, since either may come first.
enum LinkDialogue {
    static func send(_ message: LinkMessage, on connection: LinkConnection) async throws(LinkFailure) {
        do {
            try await connection.send(LinkMessageCodec.encode(message))
        } catch {
            throw LinkFailure(.refusedThere, "the other machine closed the connection")
        }
    }

    /// The next message; the end of the connection is the other side giving up.
    static func receive(on connection: LinkConnection) async throws(LinkFailure) -> LinkMessage {
        let bytes: [UInt8]?
        do {
            bytes = try await connection.receive()
        } catch {
            throw LinkFailure(.invalid, "the link connection failed: \(error)")
        }
        guard let bytes else { throw LinkFailure(.refusedThere, "the other machine closed the connection") }
        do {
            return try LinkMessageCodec.decode(bytes)
        } catch {
            throw LinkFailure(.invalid, "the other machine sent \(error)")
        }
    }

    /// Shows the words, and waits for this person's answer and the other side's (a confirm,
    /// or a refusal that ends it at once, whatever this person is still deciding). On this
    /// person's yes it sends a confirm; on a no, a refusal.
    static func agree(
        _ prompt: LinkPrompt, confirm: @escaping LinkConfirmation, on connection: LinkConnection
    ) async throws(LinkFailure) {
        enum Event: Sendable {
            case answer(Bool)
            case message(Result<LinkMessage, LinkFailure>)
        }
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        // Unstructured: a person who never answers must not keep the link from ending.
        let asking = Task {
            continuation.yield(.answer(await confirm(prompt)))
        }
        let reading = Task {
            do throws(LinkFailure) {
                continuation.yield(.message(.success(try await receive(on: connection))))
            } catch {
                continuation.yield(.message(.failure(error)))
            }
        }
        defer {
            asking.cancel()
            reading.cancel()
            continuation.finish()
        }
        var answered = false
        var confirmed = false
        for await event in events {
            switch event {
            case .answer(true):
                try await send(.confirm, on: connection)
                answered = true
            case .answer(false):
                try? await send(.refuse(reason: "the words did not match"), on: connection)
                await connection.close()
                throw LinkFailure(.refusedHere, "you answered no: nothing was linked")
            case .message(.success(.confirm)):
                confirmed = true
            case .message(.success(.refuse(let reason))):
                await connection.close()
                throw LinkFailure(
                    .refusedThere, "the other machine refused (\(DisplayName.cleaned(reason))): nothing was linked")
            case .message(.success(let other)):
                await connection.close()
                throw LinkFailure(.invalid, "the other machine sent \(other.kindName) instead of its answer")
            case .message(.failure(let failure)):
                await connection.close()
                throw failure
            }
            if answered && confirmed { return }
        }
        throw LinkFailure(.refusedThere, "the link was cancelled")
    }
}

extension LinkMessage {
    var kindName: String {
        switch self {
        case .request: return "a request"
        case .confirm: return "a confirmation"
        case .refuse: return "a refusal"
        case .grant: return "a grant"
        case .keys: return "keys"
        case .done: return "done"
        }
    }
}
