import Foundation
import TestSupport
import Testing

/// Common mistakes get a one-line answer naming the fix (issue 50): a verb where jwsinspect
/// takes none, an empty argument (an unset variable), an empty `--application-username`, and
/// `--brief` keeping the reason a check failed.
@Suite(.timeLimit(.minutes(10))) struct MistakesNamedCLITests {
    static let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path

    @Test(arguments: [
        (["verify", sample], "jwsinspect verifies what it is given, with no verb: jwsinspect FILE|JWS"),
        (["check", sample], "jwsinspect verifies what it is given, with no verb"),
        (["Validate"], "jwsinspect verifies what it is given, with no verb"),
        (["decode", sample], "(--no-verify decodes without verifying)"),
        (["version"], "the version is jwsinspect --version"),
    ])
    func aVerbIsAUsageErrorNamingTheCommand(_ arguments: [String], _ fix: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "nothing is verified: \(result.stdout.prefix(200))")
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("jwsinspect: '\(arguments[0])' is no file and no subcommand: "), "\(first)")
        #expect(first.contains(fix), "\(first)")
    }

    @Test func aFileNamedLikeAVerbIsReadAsAFile() throws {
        let folder = try CLI.temporaryDirectory()
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: Self.sample), to: folder.appendingPathComponent("verify"))
        let result = CLI.Result(
            try ChildProcess.run(CLI.executable.path, ["-q", "verify"], directory: folder))
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func anEmptyArgumentIsAUsageError() throws {
        for arguments in [[""], [Self.sample, ""], ["--", ""], ["timeline", ""]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix(
                    "jwsinspect: an argument is empty (''): an unset shell variable? Give what the usage names\n"),
                "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func anEmptyApplicationUsernameIsRefused() throws {
        let key = try CLI.temporaryDirectory().appendingPathComponent("key.p8")
        let arguments = [
            "sign", "promotional-offer-v1", "--key", key.path, "--key-id", "ABCDEFGHIJ", "--bundle-id", "com.example",
            "--product-id", "p", "--offer-id", "o",
        ]
        let empty = try CLI.run(arguments + ["--application-username", ""])
        #expect(empty.status == 64, "\(empty.stderr)")
        #expect(
            empty.stderr.hasPrefix(
                "jwsinspect: --application-username is empty: give the name the app sends, or "
                    + "--no-application-username when it sends none\n"), "\(empty.stderr)")
        // Signing with no name is said so; given both, or neither, is a usage error.
        let both = try CLI.run(arguments + ["--application-username", "u", "--no-application-username"])
        #expect(both.status == 64 && both.stderr.contains("give one"), "\(both.stderr)")
        let neither = try CLI.run(arguments)
        #expect(neither.status == 64, "\(neither.stderr)")
        #expect(neither.stderr.contains("(or --no-application-username when the app sends none)"), "\(neither.stderr)")
    }

    @Test func briefKeepsTheFailedChecksReason() throws {
        let wrong = try CLI.run(["--brief", "--bundle-id", "com.example.app", Self.sample])
        #expect(wrong.status == 4)
        let lines = wrong.stdout.split(separator: "\n")
        #expect(lines.count == 3, "\(wrong.stdout)")
        #expect(
            lines.dropFirst().first
                == #"  bundle-id: bundleId is "Com.VoiceRecording.Telephone", expected "com.example.app""#,
            "\(wrong.stdout)")
        // A valid item keeps its two lines.
        let valid = try CLI.run(["--brief", Self.sample])
        #expect(valid.status == 0)
        #expect(valid.stdout.split(separator: "\n").count == 2, "\(valid.stdout)")
    }

    @Test func mintRefusesAFormatItCannotHonour() throws {
        let folder = try CLI.temporaryDirectory()
        let ca = folder.appendingPathComponent("ca").path
        let kinds: [([String], String)] = [
            (["mint", "ca", "--out", ca], "mint ca writes files and says where in text"),
            (
                ["mint", "suite", "--ca", ca, "--out", folder.appendingPathComponent("suite").path],
                "mint suite writes files and says where in text"
            ),
            (["mint", "timeline", "--ca", ca], "mint timeline prints webhook bodies as Apple posts them, one a line"),
        ]
        for (arguments, words) in kinds {
            for format in [["--format", "json"], ["--json"], ["--format", "jsonl"]] {
                let result = try CLI.run(arguments + format)
                #expect(result.status == 64, "\(arguments + format): \(result.stderr)")
                #expect(result.stderr.hasPrefix("jwsinspect: \(words); --format "), "\(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: ca), "a refused mint ca wrote its folder")
        // Tables, the default, are what they print: given or not, they run.
        let made = try CLI.run(["mint", "ca", "--out", ca, "--backdate", "90", "--format", "table"])
        #expect(made.status == 0, "\(made.stderr)")
        let timeline = try CLI.run(["mint", "timeline", "--ca", ca])
        #expect(timeline.status == 0, "\(timeline.stderr)")
    }

    /// An API Gateway (or Lambda function URL) event whose `isBase64Encoded` is true: its body
    /// is read decoded; one that says false, or whose body is no base64, as it is.
    @Test func aBase64EventBodyIsDecoded() throws {
        let notification = CLI.packageRoot.appendingPathComponent("Samples/notification-test-sandbox-2025.jws")
        let token = try String(contentsOf: notification, encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let body = #"{"signedPayload":"\#(token)"}"#
        let encoded = Data(body.utf8).base64EncodedString()
        let folder = try CLI.temporaryDirectory()
        func event(_ body: String, flag: Bool) throws -> String {
            let file = folder.appendingPathComponent("event-\(UUID().uuidString).json")
            let quoted = body.replacingOccurrences(of: "\"", with: "\\\"")
            try CLI.write(#"{"resource":"/webhook","body":"\#(quoted)","isBase64Encoded":\#(flag)}"#, to: file)
            return file.path
        }
        let decoded = try CLI.run(["--format", "jsonl", try event(encoded, flag: true)])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let record = try #require(try decoded.jsonObjects().first)
        #expect(
            (record["source"] as? String)?.hasSuffix(".json: body → signedPayload") == true, "\(record["source"] ?? "")"
        )
        #expect(record["type"] as? String == "notification")
        // Not vacuous: without the flag the same body is text, and no JWS.
        let undecoded = try CLI.run(["--format", "jsonl", try event(encoded, flag: false)])
        #expect(undecoded.status == 5, "\(undecoded.stderr)")
        // A body that is no base64 though the flag says so is read as it is.
        let plain = try CLI.run(["--format", "jsonl", try event(body, flag: true)])
        #expect(plain.status == 0, "\(plain.stderr)")
    }

    /// A decoded payload (Xcode's `jsonRepresentation`, a JWS's middle part) is named as such.
    @Test func aDecodedPayloadIsNamed() throws {
        let decoded = try CLI.run(["--no-verify", "--format", "json", Self.sample])
        let record = try #require(try decoded.jsonObjects().first)
        let payload = try #require(record["payload"] as? [String: Any])
        let pretty = try JSONSerialization.data(withJSONObject: payload, options: [.prettyPrinted])
        let compact = #"{"notificationType":"TEST","notificationUUID":"1","signedDate":1}"#
        for text in [String(decoding: pretty, as: UTF8.self), compact] {
            let result = try CLI.run([], stdin: text)
            #expect(result.status == 5)
            #expect(
                result.stderr.hasPrefix("jwsinspect: <stdin>: malformed: no JWS found: this is a decoded payload ("),
                "\(result.stderr)")
            #expect(result.stderr.contains("give the JWS itself (jwsRepresentation"))
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        // Not vacuous: another JSON object is no payload.
        let other = try CLI.run([], stdin: #"{"foo":1}"#)
        #expect(other.stderr.hasPrefix("jwsinspect: <stdin>: malformed: no JWS found (expected"), "\(other.stderr)")
    }

    /// `mint --set` refuses a first member name Apple does not document for the payload (a typo)
    /// unless `--allow-unknown-field` says it is meant; `--unset` removes a member.
    @Test func mintSetNamesATypoAndUnsetRemoves() throws {
        let ca = try CLI.temporaryDirectory().appendingPathComponent("ca").path
        #expect(try CLI.run(["mint", "ca", "--out", ca]).status == 0)
        let typo = try CLI.run(["mint", "transaction", "--ca", ca, "--set", "productid=x"])
        #expect(typo.status == 64)
        #expect(
            typo.stderr.hasPrefix(
                "jwsinspect: mint: --set productid=x: 'productid' is not a member Apple documents for a transaction "
                    + "payload (did you mean 'productId'?); --allow-unknown-field adds it as given\n"), "\(typo.stderr)"
        )
        let nestedTypo = try CLI.run([
            "mint", "notification", "--ca", ca, "--notification-type", "DID_RENEW", "--set", "transaction.expireDate=1",
        ])
        #expect(nestedTypo.status == 64, "\(nestedTypo.stderr)")
        #expect(nestedTypo.stderr.contains("(did you mean 'expiresDate'?)"), "\(nestedTypo.stderr)")
        // A name under a notification body is checked against the body's documented members.
        let bodyTypo = try CLI.run(["mint", "notification", "--ca", ca, "--set", "data.statsu=2"])
        #expect(bodyTypo.status == 64)
        #expect(
            bodyTypo.stderr.hasPrefix(
                "jwsinspect: mint: --set data.statsu=2: 'statsu' is not a member Apple documents for a "
                    + "notification's data (did you mean 'status'?); --allow-unknown-field adds it as given\n"),
            "\(bodyTypo.stderr)")
        #expect(try CLI.run(["mint", "notification", "--ca", ca, "--set", "data.status=2"]).status == 0)
        #expect(
            try CLI.run(["mint", "notification", "--ca", ca, "--set", "data.brandNew=2", "--allow-unknown-field"])
                .status == 0)

        func payload(_ arguments: [String]) throws -> [String: Any] {
            let result = try CLI.run(["mint", "transaction", "--ca", ca, "--format", "json"] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try result.jsonObjects().first)
            return try #require(object["payload"] as? [String: Any])
        }
        #expect(try payload(["--set", "brandNew=1", "--allow-unknown-field"])["brandNew"] as? Int == 1)
        #expect(try payload(["--set", "productId=\"pro\""])["productId"] as? String == "pro")
        let removed = try payload(["--unset", "price", "--unset", "currency"])
        #expect(removed["price"] == nil && removed["currency"] == nil && removed["transactionId"] != nil)
        // --unset comes after every --set.
        #expect(try payload(["--unset", "price", "--set", "price=1"])["price"] == nil)
        let missing = try CLI.run(["mint", "transaction", "--ca", ca, "--unset", "nothing"])
        #expect(missing.status == 64)
        #expect(
            missing.stderr.hasPrefix("jwsinspect: mint: --unset nothing: the payload has no member nothing to remove\n")
        )
    }

    /// `JWSINSPECT_BUNDLE_ID`, which the README's fetch set-up exports, is not read by inspect or
    /// timeline (`--bundle-id` is an expectation there): they say so, once, unless it is given.
    @Test func aBundleIDInTheEnvironmentIsSaidToBeIgnored() throws {
        let environment = ["JWSINSPECT_BUNDLE_ID": "com.example.app"]
        let warning =
            "jwsinspect: warning: JWSINSPECT_BUNDLE_ID (com.example.app) is a credential for sign and fetch, not "
            + "read here: --bundle-id com.example.app expects that bundle ID\n"
        let inspect = try CLI.run(["-q", Self.sample], environment: environment)
        #expect(inspect.status == 0, "not read: Apple's sample is another app's")
        #expect(inspect.stderr == warning, "\(inspect.stderr)")
        let timeline = try CLI.run(["timeline", "--brief", Self.sample], environment: environment)
        #expect(timeline.stderr.hasPrefix(warning), "\(timeline.stderr)")
        let given = try CLI.run(
            ["-q", "--bundle-id", "Com.VoiceRecording.Telephone", Self.sample], environment: environment)
        #expect(given.status == 0 && given.stderr.isEmpty, "\(given.stderr)")
        #expect(try CLI.run(["-q", Self.sample]).stderr.isEmpty)
    }

    @Test func timelineCountsOneItemInTheSingular() throws {
        let result = try CLI.run(["timeline", Self.sample])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.hasSuffix("\n1 item: 1 folded, 0 skipped; 1 subscription; no anomaly\n"), "\(result.stdout)")
    }

    /// `timeline -q`: nothing on standard output, the exit status saying it all (issue 50).
    @Test func timelineQuietExitsByTheAnomalies() throws {
        let folder = try CLI.temporaryDirectory()
        let ca = folder.appendingPathComponent("ca").path
        #expect(try CLI.run(["mint", "ca", "--out", ca, "--backdate", "90"]).status == 0)
        let root = ca + "/root.der"
        for (clean, status) in [(false, Int32(9)), (true, Int32(0))] {
            let log = try CLI.run(["mint", "timeline", "--ca", ca] + (clean ? ["--clean"] : []))
            #expect(log.status == 0, "\(log.stderr)")
            let file = folder.appendingPathComponent("log-\(clean).jsonl")
            try CLI.write(log.stdout, to: file)
            let quiet = try CLI.run(["timeline", "-q", "--fail-on-anomaly", "--root", root, file.path])
            #expect(quiet.status == status, "\(quiet.stderr)")
            #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stdout)\(quiet.stderr)")
            // Not vacuous: without -q the same run prints.
            let loud = try CLI.run(["timeline", "--fail-on-anomaly", "--root", root, file.path])
            #expect(loud.status == status && !loud.stdout.isEmpty)
        }
    }

    /// `timeline --time-zone` shows its tables' moments in that zone, as inspect does; JSON stays UTC.
    @Test func timelineShowsTablesInTheZoneAsked() throws {
        let paris = try CLI.run(["timeline", "--time-zone", "Europe/Paris", Self.sample])
        #expect(paris.status == 0, "\(paris.stderr)")
        #expect(paris.stdout.contains("  2022-11-04T12:01:25.499+01:00  $ transaction"), "\(paris.stdout)")
        let utc = try CLI.run(["timeline", Self.sample])
        #expect(utc.stdout.contains("  2022-11-04T11:01:25.499Z  $ transaction"), "\(utc.stdout)")
        let json = try CLI.run(["timeline", "--time-zone", "Europe/Paris", "--format", "jsonl", Self.sample])
        #expect(json.status == 0 && json.stdout.contains(#""signedDate":"2022-11-04T11:01:25.499Z""#))
        #expect(
            json.stderr == "jwsinspect: warning: --time-zone Europe/Paris is for tables; --format jsonl writes UTC\n")
        let unknown = try CLI.run(["timeline", "--time-zone", "Mars/Base", Self.sample])
        #expect(unknown.status == 64 && unknown.stdout.isEmpty, "\(unknown.stderr)")
    }
}
