import Foundation
import Testing

@testable import ConfabCrypto

/// Reads the JSON test vectors shipped in Fixtures/ (see Fixtures/README.md for where each
/// came from).
enum FixtureLoader {
    static func data(_ name: String) throws -> Data {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"),
            "fixture \(name).json missing from the test bundle")
        return try Data(contentsOf: url)
    }

    static func decode<T: Decodable>(_ type: T.Type, from name: String, snakeCaseKeys: Bool = false) throws -> T {
        let decoder = JSONDecoder()
        if snakeCaseKeys { decoder.keyDecodingStrategy = .convertFromSnakeCase }
        return try decoder.decode(type, from: data(name))
    }

    /// For fixtures whose shape varies from entry to entry.
    static func object(_ name: String) throws -> Any {
        try JSONSerialization.jsonObject(with: data(name))
    }
}

/// Decodes hex in a test, failing the test (not crashing it) on malformed text.
func hex(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
    try #require(Hex.decode(text), "not hex: \(text)", sourceLocation: sourceLocation)
}

extension SecureBytes {
    /// Test-only view of a secret, for comparing against expected vectors.
    var bytesForTesting: [UInt8] { unsafeCopy }
}
