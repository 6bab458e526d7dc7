import AppStoreTestData
import Foundation
import TestPKI

@testable import JWSInspectCore

/// Shared fixtures: the package's own files and one test PKI for the whole suite.
enum Fixtures {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: packageRoot.appendingPathComponent(relativePath)))
    }

    static func sample(_ name: String) throws -> String {
        String(decoding: try bytes("Samples/\(name)"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A fixed "now" inside the test leaf's validity: 2025-06-01T00:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_748_736_000)

    /// The trusted test PKI and a second, untrusted one (the attacker's).
    static let pki = AppleShapedChain()
    static let attacker = AppleShapedChain(rootCN: "Attacker Root CA")

    static func root(_ chain: AppleShapedChain = pki) -> Certificate {
        // swiftlint:disable:next force_try
        try! Certificate(derBytes: chain.root.der)
    }

    /// Options trusting the test root, with the fixed clock.
    static func options(_ configure: (inout VerificationOptions) -> Void = { _ in }) -> VerificationOptions {
        var options = VerificationOptions(trustStore: TrustStore(roots: [root()]))
        options.now = now
        configure(&options)
        return options
    }

    static func inspect(_ token: String, _ configure: (inout VerificationOptions) -> Void = { _ in }) -> Inspection {
        Verifier(options: options(configure)).inspect(token, source: "test")
    }
}

extension Inspection {
    /// The first failed check's name, if any.
    var failedCheck: Check.Name? { checks.first { !$0.passed }?.name }
    func check(_ name: Check.Name) -> Check? { checks.first { $0.name == name } }
}

/// Words every hint as its value in brackets ("[needsKey(kid: "K")]"), so a test sees which
/// hint a message carries, not an option name the core never knows.
struct MarkedHints: HintWording {
    func word(_ hint: Hint) -> String { "[\(hint)]" }
}
