import AppStoreTestData
import Foundation
import StrictJSONParser
import TestPKI
import Testing

/// Untrusted input through the executable: nothing crashes, nothing is lost, every refusal
/// names its limit, and JSON output stays JSON (checked by an independent strict parser).
@Suite(.timeLimit(.minutes(10))) struct HostileInputCLITests {
    static let pki = ExecutableTests.pki
    static let root = ExecutableTests.rootFile

    static func sample(_ name: String) throws -> String {
        try String(contentsOf: CLI.packageRoot.appendingPathComponent("Samples/\(name)"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func base64URL(_ text: String) -> String { TestPKI.base64URL(Array(text.utf8)) }

    /// Apple's real header over a crafted payload, with 64 zero bytes as signature.
    static func unsigned(payload: String) throws -> String {
        let header = try sample("notification-subscribed-sandbox-2025.jws").split(separator: ".")[0]
        return "\(header).\(base64URL(payload)).\(TestPKI.base64URL([UInt8](repeating: 0, count: 64)))"
    }

    @Test(arguments: ["1e22", "-1e22", "123456789012345678901234567890"])
    func signingDateThatIsNoDateNeitherCrashesNorLosesTheBatch(_ value: String) throws {
        let valid = try Self.sample("notification-test-sandbox-2025.jws")
        let crafted = try Self.unsigned(payload: #"{"signedDate":\#(value),"receiptCreationDate":\#(value)}"#)
        let nested = try Self.unsigned(
            payload:
                #"{"notificationType":"TEST","signedDate":1759000000000,"data":{"signedTransactionInfo":"\#(try Self.unsigned(payload: #"{"signedDate":\#(value)}"#))"}}"#
        )
        let file = try CLI.temporaryDirectory().appendingPathComponent("batch.txt")
        try CLI.write([valid, crafted, nested, valid].joined(separator: "\n") + "\n", to: file)
        let result = try CLI.run(["--format", "jsonl", file.path])
        #expect(result.status == 1, "\(result.stderr)")
        let objects = try StrictJSON.lines(result.stdout)
        #expect(
            objects.map { $0["status"] as? String } == ["valid", "invalid-signature", "invalid-signature", "valid"])
        let basis = (objects[1]["checkTime"] as? [String: Any])?["basis"] as? String
        #expect(basis == "now (signedDate is not a valid date)")
    }

    @Test(arguments: ["99999999999999999", "0000-12-31", "10000-01-01T00:00:00Z"])
    func atOutsideYears0001To9999IsAUsageError(_ value: String) throws {
        let result = try CLI.run(["--at", value, "-q", ExecutableTests.sample])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("jwsinspect: --at "), "\(result.stderr)")
    }
}

extension HostileInputCLITests {
    /// One line of 87,381 minimal tokens glued together (8 MiB): splitting them was quadratic
    /// (a 4 MiB line took 45 s in a release build). The debug build needs a few seconds now.
    @Test func gluedTokensOnOneLineAreSplitInLinearTime() throws {
        let piece = "eyJh.eyJh." + String(repeating: "A", count: 86)
        let file = try CLI.temporaryDirectory().appendingPathComponent("glued.txt")
        try CLI.write(String(repeating: piece, count: (8 << 20) / piece.utf8.count) + "\n", to: file)
        let result = try CLI.run(["-q", "--summary", file.path], timeout: 120)
        #expect(result.status == 5, "killed after 120 s when -1")
        #expect(result.stderr.hasSuffix("jwsinspect: summary: 87381 results: 87381 malformed\n"))
    }

    /// A line over the record limit inside a multi-line document ended the document silently,
    /// the rest was read as text, and the run reported "1 valid" with exit 0.
    @Test func aLineOverTheLimitInsideADocumentIsRefusedNotLost() throws {
        let file = try CLI.temporaryDirectory().appendingPathComponent("dump.json")
        let token = Self.pki.sign(payloadJSON: TestPayloads.transaction())
        var text = "{\"signedTransactions\": [\n\"\(token)\",\n\""
        text += String(repeating: "A", count: (64 << 20) + 10)
        text += "\"\n]}\n"
        try CLI.write(text, to: file)
        text = ""
        let result = try CLI.run(["--format", "jsonl", "--summary", "--root", Self.root, file.path])
        #expect(result.status == 5)
        #expect(
            result.stderr.hasPrefix(
                "jwsinspect: \(file.path):1: malformed: the JSON document on lines 1 to 4 is over the 64 MiB "
                    + "limit for one record; nothing in it was read\n"))
        #expect(try StrictJSON.lines(result.stdout).map { $0["status"] as? String } == ["malformed"])
        #expect(
            result.stderr.hasSuffix(
                "{\"schemaVersion\":1,\"record\":\"summary\",\"total\":1,\"statuses\":{\"malformed\":1}}\n"))
    }
}

extension HostileInputCLITests {
    /// Every control character, raw inside payload strings (Foundation's parser lets them by),
    /// used to be copied into the output byte for byte: three results became five lines and
    /// `jq` stopped. Now output is JSON, one object per line in JSON Lines, values unchanged.
    @Test(arguments: ["jsonl", "json"])
    func jsonOutputStaysJSONWhateverThePayloadHolds(_ format: String) throws {
        let controls = (0..<0x20).map { UInt8($0) }
        let note = Array("a".utf8) + controls + Array("\u{7f}\u{85}\u{2028}z\"\\".utf8)
        let escapedTail = Array(#"\"\\"#.utf8)
        let payload =
            Array(#"{"transactionId":"1","signedDate":1735689600000,"note":"a"#.utf8) + controls
            + Array("\u{7f}\u{85}\u{2028}z".utf8) + escapedTail + Array(#"","n\u0001x":1}"#.utf8)
        let raw = TestPKI.compactJWS(headerJSON: Self.pki.headerJSON(), payloadBytes: payload, key: Self.pki.leaf.key)
        let bom = TestPKI.compactJWS(
            headerJSON: Self.pki.headerJSON(), payloadBytes: [0xEF, 0xBB, 0xBF] + Array("{}".utf8),
            key: Self.pki.leaf.key)
        let valid = Self.pki.sign(payloadJSON: TestPayloads.transaction())
        let result = try CLI.run(
            ["--format", format, "--root", Self.root, "-"], stdin: [raw, bom, valid].joined(separator: "\n"))
        #expect(result.status == 5, "\(result.stderr)")
        let objects: [[String: Any]]
        if format == "jsonl" {
            objects = try StrictJSON.lines(result.stdout)
        } else {
            objects = try StrictJSON.documents(result.stdout).map { try #require($0 as? [String: Any]) }
        }
        #expect(objects.map { $0["status"] as? String } == ["valid", "malformed", "valid"])
        let shown = try #require(objects.first?["payload"] as? [String: Any])
        #expect(Array((shown["note"] as? String ?? "").utf8) == note, "the payload as signed, escaped")
        #expect(shown["n\u{1}x"] as? Double == 1)
        let display = try #require(objects.first?["display"] as? [String: Any])
        #expect(display["note"] as? String == String(decoding: note, as: UTF8.self))
        #expect((objects[1]["reason"] as? String)?.contains("UTF-8 byte order mark") == true)
    }
}

extension HostileInputCLITests {
    static func pem(_ der: [UInt8]) -> String {
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
    }

    /// A PEM bundle loaded only its first certificate, silently.
    @Test func rootBundlesLoadEveryCertificate() throws {
        let folder = try CLI.temporaryDirectory()
        let apple = Array(
            try Data(contentsOf: CLI.packageRoot.appendingPathComponent("Certificates/AppleRootCA-G3.cer")))
        let bundle = folder.appendingPathComponent("bundle.pem")
        try CLI.write("# test roots\n" + Self.pem(Self.pki.root.der) + "\n" + Self.pem(apple), to: bundle)
        let token = Self.pki.sign(payloadJSON: TestPayloads.transaction())
        let result = try CLI.run(["--format", "jsonl", "--root", bundle.path, token, ExecutableTests.sample])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try StrictJSON.lines(result.stdout).map { $0["status"] as? String } == ["valid", "valid"])
    }

    @Test(arguments: [
        ("", "--root: '%@' is not a DER X.509 certificate"),
        (
            "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n",
            "--root: '%@' is a PEM file without a CERTIFICATE block"
        ),
        (
            "ROOT\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
            "--root: '%@' is a PEM file whose CERTIFICATE block 2 of 2 is not a readable certificate"
        ),
    ])
    func rootFilesWithoutUsableCertificatesAreRefused(_ content: String, _ expected: String) throws {
        let file = try CLI.temporaryDirectory().appendingPathComponent("root.pem")
        try CLI.write(content.replacingOccurrences(of: "ROOT\n", with: Self.pem(Self.pki.root.der)), to: file)
        let result = try CLI.run(["-q", "--root", file.path, ExecutableTests.sample])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix("jwsinspect: " + expected.replacingOccurrences(of: "%@", with: file.path)),
            "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    /// A closed standard input answered "malformed" (exit 5) with "Bad file descriptor"; a
    /// directory given as --root answered 64. Both are unreadable: exit 66, one line.
    @Test func unreadableIsUnreadable() throws {
        let closed = try CLI.runProgram("/bin/sh", ["-c", "exec \"$0\" <&-", CLI.executable.path])
        #expect(closed.status == 66)
        #expect(closed.stderr == "jwsinspect: cannot read standard input: it is closed (Bad file descriptor)\n")

        let directory = try CLI.run(["--root", NSTemporaryDirectory(), ExecutableTests.sample])
        #expect(directory.status == 66)
        #expect(directory.stderr == "jwsinspect: --root: cannot read '\(NSTemporaryDirectory())': it is a directory\n")
    }
}

extension HostileInputCLITests {
    static let jq = ["/usr/bin/jq", "/usr/local/bin/jq"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// jq itself reads every result of a hostile batch (the strict parser above is the judge
    /// everywhere; this is the tool users pipe into).
    @Test(.enabled(if: jq != nil, "jq is not installed"))
    func jqReadsEveryResult() throws {
        let folder = try CLI.temporaryDirectory()
        let batch = folder.appendingPathComponent("batch.txt")
        var bytes = Array(
            try String(
                contentsOf: CLI.packageRoot.appendingPathComponent("Tests/Fuzz/regressions/raw-control-characters.txt"),
                encoding: .utf8
            ).utf8)
        bytes += Array(
            try Data(contentsOf: CLI.packageRoot.appendingPathComponent("Tests/Fuzz/regressions/lax-json.txt")))
        bytes += Array(
            try Data(contentsOf: CLI.packageRoot.appendingPathComponent("Tests/Fuzz/regressions/signed-date-1e22.txt")))
        try Data(bytes).write(to: batch)
        for format in ["jsonl", "json"] {
            let output = folder.appendingPathComponent("out.\(format)")
            let result = try CLI.run(["--format", format, batch.path])
            try Data(result.stdout.utf8).write(to: output)
            let jq = try CLI.runProgram(try #require(Self.jq), ["-r", ".status", output.path])
            #expect(jq.status == 0, "jq refused the \(format) output: \(jq.stderr)")
            #expect(jq.stdout.split(separator: "\n").count == 11, "\(jq.stdout)")
        }
    }
}

extension HostileInputCLITests {
    /// 100 nested objects with 500-character keys: every result's source held the whole 50 KB path
    /// (40,000 short tokens, 1.3 MB, took 2 GB), and the output repeated it for each. Every format
    /// shows the path shortened, its start, "…" and its end.
    @Test func aLongJSONPathIsShownShortenedInEveryFormat() throws {
        let token = Self.pki.sign(payloadJSON: TestPayloads.transaction())
        var document = #"["\#(token)","\#(token)"]"#
        for level in (0..<100).reversed() {
            document = #"{"k\#(level)\#(String(repeating: "x", count: 498))":\#(document)}"#
        }
        let file = try CLI.temporaryDirectory().appendingPathComponent("deep.json")
        try CLI.write(document + "\n", to: file)
        // The first 40 bytes of the path, "…", its last 85.
        let head = "\(file.path): k0" + String(repeating: "x", count: 38) + "…"
        let sources = ["[0]", "[1]"].map { head + String(repeating: "x", count: 85 - $0.count) + $0 }
        for format in ["table", "json", "jsonl"] {
            let result = try CLI.run(["--format", format, "--root", Self.root, file.path])
            #expect(result.status == 0, "\(format): \(result.stderr)")
            #expect(sources.allSatisfy { result.stdout.contains($0) }, "\(format)")
            #expect(!result.stdout.contains(String(repeating: "x", count: 100)), "\(format): a whole key shown")
            if format == "jsonl" {
                #expect(try StrictJSON.lines(result.stdout).map { $0["source"] as? String } == sources)
            }
        }
    }

    /// A JWS inside a JSON string with other text was not found ("no JWS found", exit 5), though
    /// the same text outside JSON was: a log message, an Authorization header, an API Gateway
    /// event whose `body` is the notification's JSON.
    @Test func tokensInsideJSONStringsAreFoundThroughTheCommand() throws {
        let token = Self.pki.sign(payloadJSON: TestPayloads.transaction())
        let body = #"{\"signedPayload\":\"\#(token)\"}"#
        let cases = [
            (#"{"msg":"verifying token \#(token) now"}"#, "<stdin>: msg"),
            (#"{"headers":{"authorization":"Bearer \#(token)"}}"#, "<stdin>: headers.authorization"),
            (#"{"httpMethod":"POST","body":"\#(body)","isBase64Encoded":false}"#, "<stdin>: body → signedPayload"),
        ]
        for (input, source) in cases {
            let result = try CLI.run(["--format", "jsonl", "--root", Self.root], stdin: input)
            #expect(result.status == 0, "\(source): \(result.stderr)")
            let objects = try StrictJSON.lines(result.stdout)
            #expect(objects.map { $0["source"] as? String } == [source])
            #expect(objects.map { $0["status"] as? String } == ["valid"])
        }
    }
}
