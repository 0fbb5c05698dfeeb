import CLibFuzzerDriver
import ConfabClient
import Foundation

// A line on the control socket, from any process of the node's user (Protocol.md §13):
// never a crash, and a request that decodes encodes to a line that decodes to the same
// request, so what a client sends is what the node runs.
//
// The web app's routes carry the same params without the envelope, the method from the
// path (Protocol.md §13.1): the input's first byte picks a method, the rest is its params,
// and what decodes must travel in an envelope and come back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    if let first = bytes.first {
        let methods = OperationMethod.allCases
        let method = methods[Int(first) % methods.count]
        if let operation = try? ControlEnvelope.operation(method, params: bytes.dropFirst()) {
            let envelope = ControlEnvelope(id: nil, request: .operation(operation))
            guard let line = try? JSONOutput.line(envelope) else {
                preconditionFailure("decoded params did not encode")
            }
            let again = try? JSONOutput.decoder().decode(ControlEnvelope.self, from: Data(line.utf8))
            precondition(again == envelope, "decoded params changed on their way back: \(line)")
        }
    }
    guard let envelope = try? JSONOutput.decoder().decode(ControlEnvelope.self, from: bytes) else { return 0 }
    guard let line = try? JSONOutput.line(envelope) else { preconditionFailure("a decoded request did not encode") }
    let again = try? JSONOutput.decoder().decode(ControlEnvelope.self, from: Data(line.utf8))
    precondition(again == envelope, "a decoded request changed on its way back: \(line)")
    return 0
}

/// SwiftPM links each executable with `main` aliased to `<target>_main`, which would
/// otherwise be missing here (no top-level code); it starts libFuzzer's driver.
@_cdecl("FuzzControlRequest_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    confab_run_libfuzzer(argc, argv)
}
