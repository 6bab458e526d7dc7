import Foundation
import TestPKI
import Testing

/// StoreKit 1 transaction receipts through the command: Apple's fixture and a fuller made-up
/// receipt decode in every format, exit 10 (`unverifiable`) and name the `fetch transaction`
/// that verifies them through Apple; `--require-active` never grants, `--no-verify` decodes
/// and grants nothing; `--exact`, arguments, standard input and `--redact` take them as any
/// input; a broken one is malformed (5) with its reason on one line.
@Suite(.timeLimit(.minutes(10))) struct TransactionReceiptCLITests {
    static let apple = CLI.packageRoot.appendingPathComponent("Tests/Vectors/apple/legacyTransaction").path
    static let sample = CLI.packageRoot.appendingPathComponent("Samples/storekit1-transaction-receipt.b64").path

    static func appleText() throws -> String { try String(contentsOfFile: apple, encoding: .utf8) }

    static func json(_ result: InProcess.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func applesFixtureExitsTenNamingTheFetchThatVerifiesIt() throws {
        let result = try CLI.run([Self.apple])
        #expect(result.status == 10, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("UNVERIFIABLE — StoreKit 1 transaction receipt NOT verifiable here") == true)
        #expect(lines.first?.contains("verify it through Apple: jwsinspect fetch transaction 33993399") == true)
        #expect(lines.contains("  FAIL  signature  " + Self.signatureDetail("33993399")))
        #expect(lines.contains("TRANSACTION RECEIPT"))
        #expect(lines.contains("  transaction-id  33993399"))
        #expect(result.stderr.isEmpty)
        // The sample the documentation runs is the same receipt.
        #expect(try CLI.run([Self.sample]).status == 10)
    }

    static func signatureDetail(_ id: String) -> String {
        "not verifiable — a StoreKit 1 transaction receipt's signature is in a format Apple never documented and "
            + "its certificates expired; verify the transaction through Apple: jwsinspect fetch transaction \(id)"
    }

    @Test func jsonSaysWhatItIsAndThatNothingIsProven() throws {
        let result = InProcess.run(["--format", "json", Self.apple])
        #expect(result.status == 10)
        let object = try Self.json(result)
        #expect(object["type"] as? String == "transactionReceipt")
        #expect(object["envelope"] as? String == "transactionReceipt")
        #expect(object["status"] as? String == "unverifiable")
        #expect(object["verified"] as? Bool == false)
        #expect(object["authentic"] as? Bool == false)
        #expect(object["checkTime"] is NSNull)
        #expect(object["chain"] as? [Any] != nil && (object["chain"] as? [Any])?.isEmpty == true)
        #expect(object["payload"] as? [String: String] == ["transaction-id": "33993399"])
        #expect(object["header"] as? [String: String] == [:])
        let access = try #require(object["access"] as? [String: Any])
        #expect(access["grants"] is NSNull)
        #expect(access["state"] as? String == "undecided")
        #expect(object["reason"] as? String == "signature: " + Self.signatureDetail("33993399"))
    }

    @Test func theFullerShapeShowsItsMembers() throws {
        let receipt = TransactionReceiptBuilder().base64
        let result = InProcess.run([receipt])
        #expect(result.status == 10, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("  signature       128 bytes, not verified"))
        #expect(lines.contains { $0.hasPrefix("  environment     Sandbox") })
        #expect(
            lines.contains {
                $0.hasPrefix("  purchase-date-ms ")
                    && $0.hasSuffix("1696341462000  2023-10-03T13:57:42.000Z  (1 year ago)")
            }, "\(lines)")
        #expect(
            lines.contains {
                $0.hasPrefix("  purchase-date-pst ") && $0.hasSuffix("2023-10-03 06:57:42 America/Los_Angeles")
            })
        #expect(lines.contains { $0.hasPrefix("  bid ") && $0.hasSuffix(" com.example.app") })
        #expect(lines.first?.contains("jwsinspect fetch transaction 2000000000000002") == true)
        // --time-zone renders its dates in the zone, as every date.
        let zoned = InProcess.run(["--time-zone", "+02:00", receipt])
        #expect(zoned.stdout.contains("2023-10-03T15:57:42.000+02:00"), "\(zoned.stdout)")
    }

    /// `--require-active` fails too, but the signature's check decides: 10, never 0 nor 6;
    /// beside a valid token, the first failing input decides.
    @Test func requireActiveNeverGrants() throws {
        let result = InProcess.run(["--require-active", "--format", "jsonl", Self.apple])
        #expect(result.status == 10)
        let object = try Self.json(result)
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.map { $0["name"] as? String } == ["signature", "active"])
        #expect(checks.allSatisfy { $0["passed"] as? Bool == false })
        #expect((object["access"] as? [String: Any])?["grants"] is NSNull)
        let brief = InProcess.run(["--require-active", "--brief", Self.apple])
        #expect(brief.status == 10)
        #expect(brief.stdout.contains("no access decision (not proven: ask Apple)"), "\(brief.stdout)")
    }

    /// `--no-verify`: decoded, unverified (0), and no access; with `--require-active`, inactive (6).
    @Test func noVerifyDecodesAndGrantsNothing() throws {
        let result = InProcess.run(["--no-verify", "--format", "jsonl", Self.apple])
        #expect(result.status == 0)
        let object = try Self.json(result)
        #expect(object["status"] as? String == "unverified")
        #expect((object["checks"] as? [Any])?.isEmpty == true)
        #expect((object["access"] as? [String: Any])?["grants"] is NSNull)
        let active = InProcess.run(["--no-verify", "--require-active", "-q", Self.apple])
        #expect(active.status == 6)
    }

    /// Standard input, an argument, `--exact`, a batch with `--summary`, a JSON body.
    @Test func takenAsAnyInputIs() throws {
        let text = try Self.appleText()
        let stdin = InProcess.run(["--format", "jsonl"], stdin: text)
        #expect(stdin.status == 10)
        #expect(try Self.json(stdin)["source"] as? String == "<stdin>:1")
        let argument = InProcess.run(["--format", "jsonl", text])
        #expect(try Self.json(argument)["source"] as? String == "argument 1")
        let exact = InProcess.run(["--exact", "--format", "jsonl"], stdin: text + "\n")
        #expect(exact.status == 10)
        #expect(try Self.json(exact)["source"] as? String == "<stdin>")
        let two = InProcess.run(["--exact", "-q"], stdin: text + "\n" + TransactionReceiptBuilder().base64 + "\n")
        #expect(two.status == 5)
        #expect(two.stderr.contains("--exact: the input holds 2 transaction receipts"), "\(two.stderr)")
        let batch = InProcess.run(["-q", "--summary"], stdin: text + "\n" + TransactionReceiptBuilder().base64 + "\n")
        #expect(batch.status == 10)
        #expect(batch.stderr.contains("2 results: 2 unverifiable"), "\(batch.stderr)")
        let body = InProcess.run(["--format", "jsonl"], stdin: #"{"transactionReceipt":""# + text + #""}"#)
        #expect(body.status == 10)
        #expect(try Self.json(body)["source"] as? String == "<stdin>: transactionReceipt")
    }

    /// `--redact` hides its identifiers, in the payload and in the command the check names.
    @Test func redactHidesItsIdentifiers() throws {
        let receipt = TransactionReceiptBuilder().base64
        for format in ["table", "jsonl"] {
            let result = InProcess.run(
                ["--redact", "--format", format, receipt], environment: ["JWSINSPECT_REDACT_SALT": "s"])
            #expect(result.status == 10)
            for identifier in [
                "2000000000000002", "2000000000000001", "00000000-1111-2222-3333-444444444444",
                "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE",
            ] {
                #expect(!result.stdout.contains(identifier), "\(format): \(identifier)")
            }
            #expect(result.stdout.contains("jwsinspect fetch transaction redacted-"), "\(format)")
        }
    }

    /// A broken one is malformed, its reason one line on standard error.
    @Test func aBrokenOneIsMalformed() throws {
        let binary = Data("bplist00\u{1}\u{2}".utf8).base64EncodedString()
        let result = InProcess.run(["-q", binary])
        #expect(result.status == 5)
        #expect(
            result.stderr
                == "jwsinspect: argument 1: malformed: a binary (bplist00) property list in base64, not a StoreKit 1 "
                + "transaction receipt, whose property list is OpenStep text ({ \"purchase-info\" = \"…\"; }); give "
                + "SKPaymentTransaction.transactionReceipt's base64 as the app read it, unchanged\n")
        let noInfo = Data("{ \"signature\" = \"AAAA\"; }".utf8).base64EncodedString()
        let missing = InProcess.run(["-q", noInfo])
        #expect(missing.status == 5)
        #expect(
            missing.stderr.contains("has no purchase-info member (its members: \"signature\")"), "\(missing.stderr)")
    }
}
