import Foundation
import StrictJSONParser
import Testing

@testable import JWSInspectCLI

private typealias Seed = MockAppStoreServer.Seed

/// `--redact`: customer identifiers never reach the output, in any format or on standard error;
/// each is replaced by a stable salted hash; everything else is left as it was.
@Suite("--redact", .timeLimit(.minutes(10)))
struct RedactTests {
    static let salt = ["JWSINSPECT_REDACT_SALT": "ticket-salt"]
    static let notification = CLI.packageRoot.appendingPathComponent(
        "Samples/notification-subscribed-sandbox-2025.jws"
    ).path
    static let receipt = CLI.packageRoot.appendingPathComponent("Samples/receipt-production-2024.der").path

    /// Every identifier value in a result's payloads (nested ones too) and every nested JWS.
    static func identifiers(of record: [String: Any]) -> Set<String> {
        var found: Set<String> = []
        func walk(_ value: Any, key: String?) {
            if let object = value as? [String: Any] {
                for (name, member) in object { walk(member, key: name) }
            } else if let array = value as? [Any] {
                for element in array { walk(element, key: key) }
            } else if let text = value as? String, let key {
                if Redaction.identifierKeys.contains(key) || (key.hasPrefix("signed") && text.count > 100) {
                    found.insert(text)
                }
            }
        }
        walk(record["payload"] as Any, key: nil)
        for case let nested as [String: Any] in (record["nested"] as? [String: Any] ?? [:]).values {
            found.formUnion(identifiers(of: nested))
        }
        return found
    }

    @Test("no identifier is left in any format, and the rest is as it was")
    func nothingIsLeft() throws {
        for input in [Self.notification, Self.receipt] {
            let plain = InProcess.run(["--format", "jsonl", input])
            let record = try #require(try StrictJSON.lines(plain.stdout).first)
            let values = Self.identifiers(of: record)
            #expect(values.count >= (input == Self.receipt ? 6 : 5), "\(values)")
            for format in [["--format", "table"], ["--brief"], ["--format", "json"], ["--format", "jsonl"]] {
                let redacted = InProcess.run(["--redact"] + format + [input], environment: Self.salt)
                #expect(redacted.status == plain.status, "\(format)")
                for value in values {
                    #expect(!redacted.stdout.contains(value), "\(format): \(value.prefix(40)) left in \(input)")
                }
                #expect(redacted.stdout.contains("redacted-") || format == ["--brief"], "\(format)")
                #expect(!redacted.stderr.contains("note: --redact"), "a salt was given")
            }
            // JSON stays JSON, and what is not an identifier is untouched.
            let json = InProcess.run(["--redact", "--format", "jsonl", input], environment: Self.salt)
            let redacted = try #require(try StrictJSON.lines(json.stdout).first)
            #expect(redacted["status"] as? String == record["status"] as? String)
            #expect(redacted["summary"] as? String == record["summary"] as? String)
            #expect(
                (redacted["chain"] as? [[String: Any]])?.map { $0["sha256"] as? String }
                    == (record["chain"] as? [[String: Any]])?.map { $0["sha256"] as? String })
        }
    }

    @Test("one value, one hash: within a run, across runs with one salt; another salt, other hashes")
    func hashesAreStable() throws {
        let first = InProcess.run(["--redact", "--format", "jsonl", Self.notification], environment: Self.salt)
        let again = InProcess.run(["--redact", "--format", "jsonl", Self.notification], environment: Self.salt)
        #expect(first.stdout == again.stdout)
        let record = try #require(try StrictJSON.lines(first.stdout).first)
        let nested = (record["nested"] as? [String: Any])?["data.signedTransactionInfo"] as? [String: Any]
        let renewal = (record["nested"] as? [String: Any])?["data.signedRenewalInfo"] as? [String: Any]
        let original = (nested?["payload"] as? [String: Any])?["originalTransactionId"] as? String
        #expect(original?.hasPrefix("redacted-") == true)
        #expect(original == (renewal?["payload"] as? [String: Any])?["originalTransactionId"] as? String)
        let other = InProcess.run(
            ["--redact", "--format", "jsonl", Self.notification], environment: ["JWSINSPECT_REDACT_SALT": "other"])
        #expect(!other.stdout.contains(original ?? "none"))
        // Without a salt, one of this run, and a note that says so.
        let unsalted = InProcess.run(["--redact", Self.notification])
        #expect(unsalted.stderr.contains("note: --redact hashes with a salt of this run only"))
    }

    @Test("fetch: the ID asked about and every ID of the answer, on standard output and error")
    func fetchRedactsWhatItWasAsked() throws {
        let harness = try FetchHarness()
        let plain = harness.run(["transaction", Seed.coins, "--format", "jsonl"])
        let values = try StrictJSON.lines(plain.stdout).reduce(into: Set<String>()) {
            $0.formUnion(Self.identifiers(of: $1))
        }
        #expect(values.contains(Seed.coins))
        for format in ["table", "jsonl"] {
            let redacted = harness.run(
                ["transaction", Seed.coins, "--redact", "--format", format], environment: Self.salt)
            #expect(redacted.status == 0, "\(redacted.stderr)")
            for value in values { #expect(!(redacted.stdout + redacted.stderr).contains(value), "\(format)") }
        }
        let missing = harness.run(
            ["transaction", Seed.unknownTransaction, "--redact", "--format", "jsonl"], environment: Self.salt)
        #expect(missing.status == 8)
        #expect(!(missing.stdout + missing.stderr).contains(Seed.unknownTransaction), "\(missing.stderr)")
    }

    @Test("timeline: subscriptions, events and anomalies carry hashes")
    func timelineRedacts() throws {
        let folder = try CLI.temporaryDirectory()
        let ca = folder.appendingPathComponent("ca").path
        #expect(InProcess.run(["mint", "ca", "--out", ca, "--backdate", "90"]).status == 0)
        let log = InProcess.run(["mint", "timeline", "--ca", ca])
        let file = folder.appendingPathComponent("log.jsonl")
        try Data(log.stdout.utf8).write(to: file)
        let plain = InProcess.run(["timeline", "--root", "\(ca)/root.der", "--format", "jsonl", file.path])
        let subscription = try #require(try StrictJSON.lines(plain.stdout).first)
        let id = try #require(subscription["originalTransactionId"] as? String)
        for format in ["table", "jsonl"] {
            let redacted = InProcess.run(
                ["timeline", "--redact", "--root", "\(ca)/root.der", "--format", format, file.path],
                environment: Self.salt)
            #expect(redacted.status == plain.status)
            #expect(!redacted.stdout.contains(id) && redacted.stdout.contains("redacted-"), "\(format)")
            #expect(!redacted.stdout.contains("7e3fb20b-4cdb-47cc-936d-99d65f608138"), "the appAccountToken")
        }
    }
}
