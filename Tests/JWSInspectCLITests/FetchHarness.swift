import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI

/// A Production and a Sandbox mock App Store Server API, a key file that both accept, and the
/// test PKI's root to verify their JWS with: `run` runs `jwsinspect fetch` in this process
/// against them.
final class FetchHarness {
    /// One chain for every harness: minting it costs more than a test.
    static let chain = AppleShapedChain()

    let key = MockAPIKey()
    let directory: URL
    let keyPath: String
    let rootPath: String
    let production: MockAppStoreServer
    let sandbox: MockAppStoreServer

    /// - Parameters:
    ///   - productionSeed, sandboxSeed: whether each environment starts with the seeded customers.
    init(productionSeed: Bool = true, sandboxSeed: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        keyPath = try key.writeKeyFile(in: directory)
        rootPath = directory.appendingPathComponent("root.der").path
        try Data(Self.chain.root.der).write(to: URL(fileURLWithPath: rootPath))
        production = try MockAppStoreServer(
            environment: "Production", credentials: key.credentials, chain: Self.chain, seed: productionSeed)
        sandbox = try MockAppStoreServer(
            environment: "Sandbox", credentials: key.credentials, chain: Self.chain, seed: sandboxSeed)
    }

    deinit {
        production.stop()
        sandbox.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The base URLs and the test root: what every run needs.
    var endpoints: [String] {
        ["--production-url", production.baseURL, "--sandbox-url", sandbox.baseURL, "--root", rootPath]
    }

    /// The key, issuer and bundle ID as options.
    var credentials: [String] {
        ["--key", keyPath, "--issuer-id", key.issuerID, "--bundle-id", key.bundleID]
    }

    /// `jwsinspect fetch ARGUMENTS` with the credentials and endpoints.
    func run(_ arguments: [String], environment: [String: String] = [:], stderrIsTerminal: Bool = false)
        -> InProcess.Result
    {
        InProcess.run(
            ["fetch"] + arguments + credentials + endpoints, stdin: nil, environment: environment,
            stderrIsTerminal: stderrIsTerminal)
    }

    /// Every JSON line of a `--format jsonl` run, as objects.
    static func records(_ stdout: String) -> [[String: Any]] {
        stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}
