import AppStoreTestData
import Foundation
import TestPKI

/// `openssl s_server` on a loopback port with a self-signed test-PKI certificate that no system
/// trusts: what a client meets behind a TLS-inspecting proxy or at a wrong `https://` URL.
///
/// Started by `init` (which waits, at most 10 s, until it accepts), ended by `stop()` (also run
/// by `deinit`), which terminates that process only.
final class MockTLSServer {
    /// The certificate it presents: self-signed, CN and use of a server at 127.0.0.1, valid from
    /// 2020 to 2050 (so that being untrusted is its only defect).
    static let certificate = TestPKI.issue(
        CertificateSpec(
            commonName: "127.0.0.1 (jwsinspect test, self-signed)",
            notBefore: Date(timeIntervalSince1970: 1_577_836_800),
            notAfter: Date(timeIntervalSince1970: 2_524_608_000), isCA: false),
        issuer: nil)

    let port: UInt16
    private let process = Process()
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
        let output = directory.appendingPathComponent("stdout")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else { throw StartFailure() }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate.path, "-key", key.path, "-www",
        ]
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        // s_server prints ACCEPT once it listens.
        let ready = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < ready, process.isRunning {
            if let text = try? String(contentsOf: output, encoding: .utf8), text.contains("ACCEPT") { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        stop()
        throw StartFailure()
    }

    struct StartFailure: Error, CustomStringConvertible {
        var description: String { "openssl s_server did not start listening within 10 s" }
    }

    deinit {
        stop()
    }

    /// Kills the s_server process (by its own handle) and removes its files. Idempotent.
    ///
    /// SIGKILL, not `terminate()`'s SIGTERM: a process started from a test thread inherits that
    /// thread's signal mask, in which the test runner blocks SIGTERM, and would never end.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
