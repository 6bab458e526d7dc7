import AppStoreTestData
import Foundation
import TestPKI
import TestSupport

/// `openssl s_server` on a loopback port with a self-signed test-PKI certificate that no system
/// trusts: what a client meets behind a TLS-inspecting proxy or at a wrong `https://` URL.
///
/// Started by `init` (which waits, at most 10 s, until it accepts), ended by `stop()` (also run
/// by `deinit`), a `ChildProcess` that never outlives `lifetime`.
final class MockTLSServer {
    /// The certificate it presents: self-signed, CN and use of a server at 127.0.0.1, valid from
    /// 2020 to 2050 (so that being untrusted is its only defect).
    static let certificate = TestPKI.issue(
        CertificateSpec(
            commonName: "127.0.0.1 (jwsinspect test, self-signed)",
            notBefore: Date(timeIntervalSince1970: 1_577_836_800),
            notAfter: Date(timeIntervalSince1970: 2_524_608_000), isCA: false),
        issuer: nil)
    /// The longest it runs: longer than the test that starts it, on a busy machine.
    static let lifetime: Duration = .seconds(10 * 60)

    let port: UInt16
    private let process: ChildProcess
    private let directory: URL

    /// `https://127.0.0.1:PORT`.
    var baseURL: String { "https://127.0.0.1:\(port)" }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("cert.pem")
        let key = directory.appendingPathComponent("key.pem")
        try Data(Self.certificate.pem.utf8).write(to: certificate)
        try Data(Self.certificate.key.privateKeyPEM.utf8).write(to: key)
        port = try MockHTTPServer.unusedPort()
        process = try ChildProcess(
            "openssl",
            ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate.path, "-key", key.path, "-www"],
            timeout: Self.lifetime, outputLimit: 1 << 20)
        // s_server prints ACCEPT once it listens.
        do {
            try process.waitForOutput(within: .seconds(10)) { stdout, _ in
                String(decoding: stdout, as: UTF8.self).contains("ACCEPT") ? () : nil
            }
        } catch {
            stop()
            throw error
        }
    }

    deinit {
        stop()
    }

    /// Ends the s_server process and removes its files. Idempotent.
    func stop() {
        process.end()
        try? FileManager.default.removeItem(at: directory)
    }
}
