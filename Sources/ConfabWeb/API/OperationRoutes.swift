import ConfabClient
import ConfabNode
import Foundation
import Hummingbird

/// `POST /api/v1/<method>` with the operation's params as the JSON body: the control
/// protocol's operations, answered by the node's own messenger, so the app does what the
/// terminal's front ends do, with the same errors (Protocol.md §13.1).
struct OperationRoutes<Context: RequestContext>: Sendable {
    /// As long as a control request line may be.
    static var maxBodyBytes: Int { ControlServer.maxLineBytes }

    let messenger: LocalMessenger
    let linkOffers: WebLinkOffers

    func add(to router: Router<Context>) {
        router.post("/api/v1/:method") { request, context in
            try await answer(request, method: context.parameters.get("method") ?? "")
        }
    }

    private func answer(_ request: Request, method name: String) async throws -> Response {
        guard let method = OperationMethod(rawValue: name) else {
            return OperationAnswer.failure("unknown method \"\(name)\"", status: .notFound)
        }
        guard method.offeredToBrowsers else {
            return OperationAnswer.failure(
                "\(name) is not offered to the web app: use the confab command on this machine", status: .forbidden)
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maxBodyBytes)
        } catch {
            return OperationAnswer.failure(
                "a request is at most \(Self.maxBodyBytes) bytes of JSON", status: .contentTooLarge)
        }
        let operation: any ConfabOperation
        do {
            operation = try ControlEnvelope.operation(method, params: Data(buffer: body))
        } catch {
            return OperationAnswer.failure(ControlServer.describe(error), status: .badRequest)
        }
        do {
            return try await perform(operation)
        } catch {
            return OperationAnswer.failure("\(error)", status: .unprocessableContent)
        }
    }

    private func perform<Operation: ConfabOperation>(_ operation: Operation) async throws -> Response {
        let answer = try await operation.perform(on: messenger)
        if let offer = answer as? LinkOfferStarted { linkOffers.opened(offer.id) }
        return OperationAnswer.success(answer)
    }
}
