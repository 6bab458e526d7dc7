import Foundation
import Testing

/// Apple's own test vectors (Tests/Vectors/apple: `testNotification` under `testCA.der`, from
/// Apple's app-store-server-library-python) verify by default, as in Apple's Swift, Java and
/// Node libraries, with a note naming the OpenSSL strict checks their chain fails (Apple's
/// Python library applies them by default); `--x509-strict` makes that a chain failure (exit 2).
/// Real Apple chains pass both ways, with no note (issue 23, item 22).
@Suite(.timeLimit(.minutes(10))) struct AppleTestVectorTests {
    static func vector(_ name: String) -> String {
        CLI.packageRoot.appendingPathComponent("Tests/Vectors/apple/\(name)").path
    }

    static let root = vector("testCA.der")
    static let notification = vector("testNotification")
    /// What the note names, checks and certificates, and the library that applies the checks.
    static let noteParts = [
        "OpenSSL's strict checks (X509_V_FLAG_X509_STRICT), which Apple's Python library applies by default",
        "at the intermediate \"C=US, ST=California, L=Cupertino, O=Intermediate\": Path length given without key "
            + "usage keyCertSign (X509_V_ERR 81)",
        "CA cert does not include key usage extension (X509_V_ERR 92)",
        "Missing Authority Key Identifier (X509_V_ERR 85)",
    ]

    @Test func applesTestNotificationVerifiesWithANoteInEveryFormat() throws {
        let table = ReceiptCLI.run(["--root", Self.root, Self.notification])
        #expect(table.status == 0, "\(table.stdout)\(table.stderr)")
        #expect(table.stdout.hasPrefix("VALID"))
        let noteLine = try #require(
            table.stdout.split(separator: "\n").first { $0.hasPrefix("  note  the chain is valid") })
        for part in Self.noteParts { #expect(noteLine.contains(part), "\(noteLine)") }
        for format in ["json", "jsonl"] {
            let result = ReceiptCLI.run(["--root", Self.root, "--format", format, Self.notification])
            #expect(result.status == 0)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(format)")
            #expect(object["status"] as? String == "valid")
            let notes = object["notes"] as? [String] ?? []
            let note = try #require(notes.first { $0.contains("X509_V_FLAG_X509_STRICT") }, "\(notes)")
            #expect("  note  " + note == noteLine, "the same words in \(format) as in the table")
        }
    }

    @Test func strictChecksAskedForRefuseApplesTestChain() throws {
        let result = ReceiptCLI.run(["--root", Self.root, "--x509-strict", "--format", "jsonl", Self.notification])
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        let object = try #require(try result.jsonObjects().first)
        #expect(object["status"] as? String == "invalid-chain")
        let checks = object["checks"] as? [[String: Any]] ?? []
        let chain = try #require(checks.first { $0["name"] as? String == "chain" })
        #expect(chain["passed"] as? Bool == false)
        let detail = chain["detail"] as? String ?? ""
        #expect(detail.hasPrefix("OpenSSL's strict checks (X509_V_FLAG_X509_STRICT"), "\(detail)")
        #expect(detail.contains("Path length given without key usage keyCertSign (X509_V_ERR 81)"))
        #expect((object["notes"] as? [String] ?? []).allSatisfy { !$0.contains("X509_V_FLAG_X509_STRICT") })
    }

    /// Real Apple-signed samples pass RFC 5280 and the strict checks alike: no note either way.
    @Test(arguments: [[], ["--x509-strict"]])
    func realAppleSamplesPassBothWaysWithoutANote(_ extra: [String]) throws {
        let samples = [
            "transaction-sandbox-2022.jws", "notification-test-sandbox-2025.jws",
            "notification-subscribed-sandbox-2025.jws",
        ].map {
            CLI.packageRoot.appendingPathComponent("Samples/\($0)").path
        }
        let result = ReceiptCLI.run(extra + ["--format", "jsonl"] + samples)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        for object in try result.jsonObjects() {
            #expect(object["status"] as? String == "valid")
            #expect(object["notes"] as? [String] == [], "\(object["notes"] ?? "")")
        }
    }
}
