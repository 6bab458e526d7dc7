internal import AppStoreTestData
package import Foundation
package import TestPKI

/// A real OCSP responder on loopback: `openssl ocsp -index … -port 0 -rsigner … -CA …`, as a
/// user runs it against `mint ca --ocsp-url`. It answers for the certificates `CA` issued, from
/// an index file in `openssl ca`'s format, signed by `signer`.
///
/// A `ChildProcess`: `stop()` ends it (so does `deinit`), and so does the `.ocspResponders`
/// suite trait when the suite that started it ends; it never outlives `lifetime`.
package final class OCSPResponder: Sendable {
    /// One line of the index: a certificate by serial, valid or revoked.
    package struct Entry: Sendable {
        package let serial: UInt64
        /// When and why (a CRL reason as `openssl ca` writes it: "keyCompromise"), or nil: valid.
        package let revoked: (date: Date, reason: String)?

        package init(serial: UInt64, revoked: (date: Date, reason: String)? = nil) {
            self.serial = serial
            self.revoked = revoked
        }
    }

    /// The longest a responder runs: longer than any suite that uses one, on a busy machine.
    package static let lifetime: Duration = .seconds(30 * 60)

    /// The port `openssl ocsp` chose.
    package let port: Int
    /// `http://127.0.0.1:PORT/`, the URL certificates name.
    package var url: String { "http://127.0.0.1:\(port)/" }
    private let process: ChildProcess

    /// Starts a responder in `folder` (which it writes its files into).
    ///
    /// - Parameters:
    ///   - ca: the issuer whose certificates it answers for.
    ///   - signer: the certificate (with its key) its answers are signed with: `ca` itself, a
    ///     responder `ca` delegated, or any other, for tests of answers that must be refused.
    ///   - entries: the certificates it knows; any other is "unknown".
    ///   - days: `nextUpdate` this many days after each answer's `thisUpdate`; nil: answers
    ///     without `nextUpdate`.
    package convenience init(
        folder: URL, name: String, ca: TestCertificate, signer: TestCertificate, entries: [Entry], days: Int? = 1
    ) throws {
        let file = { (suffix: String) in folder.appendingPathComponent("\(name)-\(suffix)") }
        try Data(ca.pem.utf8).write(to: file("ca.pem"))
        try Data(signer.pem.utf8).write(to: file("signer.pem"))
        try Data(try signer.issued.key.privateKeyPEM().utf8).write(to: file("signer-key.pem"))
        try Data(entries.map(Self.indexLine).joined().utf8).write(to: file("index.txt"))
        let arguments =
            [
                "ocsp", "-index", file("index.txt").path, "-port", "0", "-rsigner", file("signer.pem").path,
                "-rkey", file("signer-key.pem").path, "-CA", file("ca.pem").path,
            ] + (days.map { ["-ndays", String($0)] } ?? [])
        try self.init(openssl: arguments)
    }

    /// Starts `openssl ARGUMENTS` (an `ocsp` responder: `-port 0` or a port of its own) and
    /// waits, at most a minute, until it listens.
    package init(openssl arguments: [String]) throws {
        process = try ChildProcess("openssl", arguments, timeout: Self.lifetime, outputLimit: 1 << 20)
        OCSPResponders.adopt(process)
        // "ACCEPT [::]:PORT PID=…" (on standard error), then a line per connection.
        port = try process.waitForOutput(within: .seconds(60)) { stdout, stderr in
            let text = String(decoding: stdout + stderr, as: UTF8.self)
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT ") }),
                let address = line.split(separator: " ").dropFirst().first,
                let colon = address.lastIndex(of: ":")
            else { return nil }
            return Int(address[address.index(after: colon)...])
        }
    }

    /// Stops the responder and returns once it is gone (later requests find the port closed).
    package func stop() {
        process.end()
    }

    private static func indexLine(_ entry: Entry) -> String {
        OCSPIndex.line(serial: entry.serial, commonName: "serial \(entry.serial)", revoked: entry.revoked)
    }
}
