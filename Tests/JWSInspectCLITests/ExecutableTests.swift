import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCLI

/// The command-line contract, end to end through the built executable:
/// exit statuses, JSON keys, inputs, and one-line errors.
@Suite(.timeLimit(.minutes(10))) struct ExecutableTests {
    static let pki = AppleShapedChain()
    static let attacker = AppleShapedChain(rootCN: "Attacker Root CA")
    static let sample = CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws").path

    /// The test root written to disk once, as PEM, for `--root`.
    static let rootFile: String = {
        let url = CLI.scratch.appendingPathComponent("test-root.pem")
        try? Data(pki.root.pem.utf8).write(to: url)
        return url.path
    }()

    static func tampered() -> String {
        var parts = pki.sign(payloadJSON: TestPayloads.transaction()).split(separator: ".").map(String.init)
        parts[1] = TestPKI.base64URL(Array(TestPayloads.transaction(bundleId: "com.attacker").utf8))
        return parts.joined(separator: ".")
    }

    /// A leaf signed by the trusted root itself, presented with an unrelated intermediate.
    static func directLeaf() -> String {
        let spec = CertificateSpec(
            commonName: "Direct Leaf", serial: 99, notBefore: AppleShapedChain.leafNotBefore,
            notAfter: AppleShapedChain.leafNotAfter, isCA: false, markerOIDs: [TestPKI.leafOID])
        let leaf = TestPKI.issue(spec, issuer: pki.root)
        return TestPKI.compactJWS(
            headerJSON: pki.headerJSON(x5c: [leaf.base64, pki.x5c[1], pki.x5c[2]]),
            payloadJSON: TestPayloads.transaction(), key: leaf.key)
    }

    /// (name, token, extra arguments, exit status, JSON status, first failing check)
    static let failureClasses: [(String, String, [String], Int32, String, String?)] = [
        ("valid", pki.sign(payloadJSON: TestPayloads.transaction()), [], 0, "valid", nil),
        ("tampered payload", tampered(), [], 1, "invalid-signature", "signature"),
        (
            "wrong key",
            TestPKI.compactJWS(headerJSON: pki.headerJSON(), payloadJSON: TestPayloads.transaction(), key: .p256()),
            [], 1, "invalid-signature", "signature"
        ),
        ("alg none", pki.sign(payloadJSON: TestPayloads.transaction(), alg: "none"), [], 1, "invalid-signature", "alg"),
        (
            "alg HS256", pki.sign(payloadJSON: TestPayloads.transaction(), alg: "HS256"), [], 1, "invalid-signature",
            "alg"
        ),
        (
            "two-certificate chain", pki.sign(payloadJSON: TestPayloads.transaction(), x5c: Array(pki.x5c.prefix(2))),
            [], 2, "invalid-chain", "x5c"
        ),
        ("untrusted root", attacker.sign(payloadJSON: TestPayloads.transaction()), [], 2, "invalid-chain", "chain"),
        (
            "x5c[2] swapped for attacker root",
            attacker.sign(
                payloadJSON: TestPayloads.transaction(), x5c: [attacker.x5c[0], attacker.x5c[1], pki.x5c[2]]),
            [], 2, "invalid-chain", "chain"
        ),
        ("path not through x5c[1]", directLeaf(), [], 2, "invalid-chain", "chain-path"),
        (
            "leaf without OID",
            AppleShapedChain(root: pki.root, leafHasOID: false).sign(payloadJSON: TestPayloads.transaction()),
            [], 2, "invalid-chain", "leaf-oid"
        ),
        (
            "intermediate without OID",
            AppleShapedChain(root: pki.root, intermediateHasOID: false).sign(payloadJSON: TestPayloads.transaction()),
            [], 2, "invalid-chain", "intermediate-oid"
        ),
        (
            "expired leaf",
            AppleShapedChain(root: pki.root, leafNotAfter: Date(timeIntervalSince1970: 1_717_200_000))
                .sign(payloadJSON: TestPayloads.transaction()), [], 2, "invalid-chain", "chain"
        ),
        (
            "wrong environment", pki.sign(payloadJSON: TestPayloads.transaction()), ["--environment", "Production"],
            3, "wrong-environment", "environment"
        ),
        (
            "wrong bundle ID", pki.sign(payloadJSON: TestPayloads.transaction()), ["--bundle-id", "com.example.other"],
            4, "wrong-app", "bundle-id"
        ),
        (
            "wrong app Apple ID", pki.sign(payloadJSON: TestPayloads.notification()), ["--app-apple-id", "42"],
            4, "wrong-app", "app-apple-id"
        ),
        ("malformed", "eyJhbGciOiJFUzI1NiJ9.eyJ9.c2ln", [], 5, "malformed", nil),
    ]

    @Test(arguments: failureClasses)
    func failureClassExitStatusAndJSON(
        _ name: String, _ token: String, _ extra: [String], _ exit: Int32, _ status: String, _ check: String?
    ) throws {
        let result = try CLI.run(["--root", Self.rootFile, "--format", "jsonl"] + extra + [token])
        #expect(result.status == exit, "\(name): \(result.stderr)")
        let objects = try result.jsonObjects()
        let object = try #require(objects.first)
        #expect(objects.count == 1)
        #expect(object["status"] as? String == status, "\(name)")
        let checks = try #require(object["checks"] as? [[String: Any]])
        let failed = checks.first { $0["passed"] as? Bool == false }
        #expect(failed?["name"] as? String == check, "\(name)")
        if let failed {
            #expect((object["reason"] as? String)?.hasPrefix("\(check!): ") == true)
            #expect((failed["detail"] as? String)?.isEmpty == false)
        }
        if exit == 5 {
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(result.stderr.contains("malformed"))
        } else {
            #expect(result.stderr.isEmpty)
        }
        // The table format exits the same way, its verdict line first.
        let table = try CLI.run(["--root", Self.rootFile] + extra + [token])
        #expect(table.status == exit)
        if exit != 5 {
            #expect(table.stdout.hasPrefix(exit == 0 ? "VALID" : "INVALID (\(status))"))
        }
    }

    @Test func jsonKeysAreStable() throws {
        let result = try CLI.run([
            "--json", "--root", Self.rootFile, Self.pki.sign(payloadJSON: TestPayloads.transaction()),
        ])
        #expect(result.status == 0)
        // Keys in documented order, as printed.
        let keys = result.stdout.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map {
            $0.dropFirst(3).prefix { $0 != "\"" }
        }
        #expect(
            keys == [
                "schemaVersion", "record", "source", "type", "envelope", "status", "reason", "verified", "authentic",
                "xcode", "summary", "access", "checkTime", "validNow", "checks", "notes", "header", "chain", "payload",
                "display", "unknownFields", "unknownValues", "nested",
            ])
        let object = try #require(try result.jsonObjects().first)
        #expect(object["type"] as? String == "transaction")
        #expect(object["source"] as? String == "argument 1")
        let chain = try #require(object["chain"] as? [[String: Any]])
        #expect(chain.count == 3)
        #expect(
            Set(chain[0].keys) == [
                "index", "role", "subject", "issuer", "serial", "notBefore", "notAfter", "sha256", "key",
                "appleOIDs", "knownAppleCertificate", "trustedRoot",
            ])
        #expect(chain[0]["appleOIDs"] as? [String] == ["1.2.840.113635.100.6.11.1"])
        #expect(chain[2]["trustedRoot"] as? Bool == true)
    }

    @Test func payloadIsExactlyAsSigned() throws {
        // Fractional milliseconds, a big integer, escapes and key order must survive untouched.
        let payload =
            #"{"zeta":1,"signedDate":1735689600000.7297,"transactionId":"1","big":123456789012345678901234567890,"s":"a\"b\u00e9","n":null,"e":[],"o":{}}"#
        let token = Self.pki.sign(payloadJSON: payload)
        let compact = try CLI.run(["--format", "jsonl", "--root", Self.rootFile, token])
        #expect(compact.status == 0, "\(compact.stderr)")
        #expect(compact.stdout.contains(#""payload":\#(payload),"display":"#))
        let pretty = try CLI.run(["--json", "--root", Self.rootFile, token])
        let squeezed = String(
            pretty.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined()
        )
        .replacingOccurrences(of: "\": ", with: "\":")
        #expect(squeezed.contains(#""payload":\#(payload),"display":"#))
    }

    @Test func realSampleWithEmbeddedRootsAndTime() throws {
        let table = try CLI.run([Self.sample])
        #expect(table.status == 0, "\(table.stderr)")
        let verdict =
            "VALID — authentic Apple-signed transaction · Sandbox (test environment: no money charged) · grants no access (expired 2022-10-24)  "
        #expect(table.stdout.hasPrefix(verdict))
        for section in ["CHECKS", "HEADER", "CHAIN", "PAYLOAD"] { #expect(table.stdout.contains("\n\(section)")) }
        #expect(table.stdout.contains("1666615873000  2022-10-24T12:51:13.000Z"))
        #expect(table.stdout.contains("one has expired since, which is normal: the data stays authentic"))
        #expect(table.stdout.contains("Apple Root CA - G3 (a trusted root)"))

        let now = try CLI.run(["--at", "now", "--format", "jsonl", Self.sample])
        #expect(now.status == 2)
        #expect(try now.jsonObjects().first?["status"] as? String == "invalid-chain")
        #expect(try CLI.run(["--at", "2022-11-05", "-q", Self.sample]).status == 0)
        #expect(try CLI.run(["--at", "2023-09-25T00:00:00Z", "-q", Self.sample]).status == 2)
        #expect(try CLI.run(["--at", "1667559685499", "-q", Self.sample]).status == 0)
    }

    @Test func everySampleVerifies() throws {
        let samples = [
            "transaction-sandbox-2022.jws", "notification-test-sandbox-2025.jws",
            "notification-subscribed-sandbox-2025.jws",
        ]
        let paths = samples.map { CLI.packageRoot.appendingPathComponent("Samples/\($0)").path }
        let result = try CLI.run(["--format", "jsonl"] + paths)
        #expect(result.status == 0)
        #expect(try result.jsonObjects().map { $0["status"] as? String } == ["valid", "valid", "valid"])
    }

    @Test func testRootReplacesAppleRoots() throws {
        let token = Self.pki.sign(payloadJSON: TestPayloads.transaction())
        #expect(try CLI.run(["-q", token]).status == 2, "not trusted by Apple's roots")
        #expect(try CLI.run(["-q", "--root", Self.rootFile, token]).status == 0)
        #expect(try CLI.run(["-q", "--root", Self.rootFile, Self.sample]).status == 2, "Apple's roots are replaced")
        // DER works too, and --root is repeatable.
        let der = try CLI.temporaryDirectory().appendingPathComponent("root.cer")
        try Data(Self.pki.root.der).write(to: der)
        let both = CLI.packageRoot.appendingPathComponent("Certificates/AppleRootCA-G3.cer").path
        #expect(try CLI.run(["-q", "--root", der.path, "--root", both, token, Self.sample]).status == 0)
    }

    @Test func inputsFromStdinFilesAndDocuments() throws {
        let valid = Self.pki.sign(payloadJSON: TestPayloads.transaction())
        let renewal = Self.pki.sign(payloadJSON: TestPayloads.renewalInfo())
        let base = ["--format", "jsonl", "--root", Self.rootFile]
        // No argument: all of stdin, several tokens on several lines.
        let stdin = try CLI.run(base, stdin: "\(valid)\n\n\(renewal) \(valid)\n")
        #expect(stdin.status == 0)
        #expect(try stdin.jsonObjects().map { $0["source"] as? String } == ["<stdin>:1", "<stdin>:3", "<stdin>:3"])
        #expect(try stdin.jsonObjects().map { $0["type"] as? String } == ["transaction", "renewalInfo", "transaction"])
        // "-" is stdin; a notification POST body as a file.
        let folder = try CLI.temporaryDirectory()
        let body = folder.appendingPathComponent("body.json")
        try CLI.write(#"{"signedPayload":"\#(Self.pki.sign(payloadJSON: TestPayloads.notification()))"}"#, to: body)
        let mixed = try CLI.run(base + ["-", body.path], stdin: "token=\"\(valid)\"")
        #expect(mixed.status == 0, "\(mixed.stderr)")
        #expect(
            try mixed.jsonObjects().map { $0["source"] as? String } == ["<stdin>:1", "\(body.path): signedPayload"])
    }

    @Test func statusIsThatOfTheFirstFailingInput() throws {
        let valid = Self.pki.sign(payloadJSON: TestPayloads.transaction())
        let production = Self.pki.sign(payloadJSON: TestPayloads.transaction(environment: "Production"))
        let result = try CLI.run([
            "--format", "jsonl", "--root", Self.rootFile, "--environment", "Sandbox",
            valid, production, Self.tampered(),
        ])
        #expect(result.status == 3)
        #expect(
            try result.jsonObjects().map { $0["status"] as? String } == [
                "valid", "wrong-environment", "invalid-signature",
            ])
        let missingFirst = try CLI.run(["-q", "--root", Self.rootFile, "/nonexistent/file.jws", Self.tampered()])
        #expect(missingFirst.status == 66)
    }

    @Test func unreadableInputsExit66() throws {
        let missing = try CLI.run(["/nonexistent/token.jws"])
        #expect(missing.status == 66)
        #expect(
            missing.stderr
                == "jwsinspect: cannot read '/nonexistent/token.jws': No such file or directory (and it is not a JWS)\n"
        )
        let directory = try CLI.run([NSTemporaryDirectory()])
        #expect(directory.status == 66)
        #expect(directory.stderr.contains("is a directory"))
        #expect(try CLI.run(["--root", "/nonexistent/root.pem", Self.sample]).status == 66)
    }

    @Test func noJWSFoundExits5WithOneLine() throws {
        let folder = try CLI.temporaryDirectory()
        let file = folder.appendingPathComponent("notes.txt")
        try CLI.write("hello world\nnothing here\n", to: file)
        let result = try CLI.run([file.path])
        #expect(result.status == 5)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr
                == "jwsinspect: \(file.path): malformed: no JWS found (expected a compact JWS header.payload.signature, a JSON document holding one, or lines of them)\n"
        )
        #expect(try CLI.run([], stdin: "").status == 5)
        let garbage = try CLI.run([], stdin: String(repeating: "\u{0}\u{ff}garbage", count: 1000))
        #expect(garbage.status == 5)
        #expect(garbage.stderr.split(separator: "\n").count == 1)
        let truncated = try CLI.run([String(Self.pki.sign(payloadJSON: "{}").prefix(200))])
        #expect(truncated.status == 5)
        #expect(truncated.stderr.contains("segment"))
    }

    @Test func hostileInputsGetOneLineErrors() throws {
        let folder = try CLI.temporaryDirectory()
        var random = SystemRandomNumberGenerator()
        let noise = folder.appendingPathComponent("noise.bin")
        try Data((0..<200_000).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: noise)
        let deep = folder.appendingPathComponent("deep.json")
        try CLI.write(String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000), to: deep)
        let huge = folder.appendingPathComponent("huge.jws")
        try CLI.write("eyJ" + String(repeating: "A", count: 2 << 20) + ".e30.c2ln", to: huge)
        for (file, expected) in [
            (noise, "no JWS found"), (deep, "not a JSON document"), (huge, "over the 1048576-byte limit"),
        ] {
            let result = try CLI.run([file.path])
            #expect(result.status == 5, "\(file.lastPathComponent)")
            #expect(result.stderr.hasPrefix("jwsinspect: \(file.path)"))
            #expect(result.stderr.contains(expected), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test func terminalEscapesInTokensAreNeutralised() throws {
        let payload = #"{"transactionId":"1","signedDate":1735689600000,"note":"\u001b]0;pwned\u0007\u001b[2J"}"#
        let token = Self.pki.sign(payloadJSON: payload, alg: "ES256\u{1b}[31m")
        let result = try CLI.run(["--root", Self.rootFile, token])
        #expect(result.status == 1)
        #expect(!result.stdout.contains("\u{1b}"))
        #expect(!result.stdout.contains("\u{7}"))
        #expect(result.stdout.contains(#"\u{1b}]0;pwned\u{7}\u{1b}[2J"#))
    }

    @Test(arguments: [
        ["--frobnicate"], ["--format", "xml"], ["--format"], ["--at", "yesterday"], ["--environment", "Prod"],
        ["--app-apple-id", "abc"], ["--type", "receipt"], ["--json=yes"], ["--bundle-id", ""],
    ])
    func usageErrorsExit64(_ arguments: [String]) throws {
        let result = try CLI.run(arguments + [Self.sample])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("usage: jwsinspect"))
    }

    @Test func helpVersionQuiet() throws {
        let help = try CLI.run(["--help"])
        #expect(help.status == 0)
        for text in ["Exit status", "--format", "--at", "--root", "--no-verify", "66", "Examples"] {
            #expect(help.stdout.contains(text))
        }
        let version = try CLI.run(["--version"])
        #expect(version.status == 0)
        // The commit is named by a release build (make build, make dist: ReleaseTests).
        #expect(
            version.stdout.wholeMatch(
                of: /jwsinspect \d+\.\d+\.\d+ \((commit [0-9a-f]{12}(-dirty)?, )?OpenSSL 3\.[^\n]*\)\n/)
                != nil, "\(version.stdout)")
        #expect(version.stdout.hasPrefix("jwsinspect \(HelpText.version) ("))
        let quiet = try CLI.run(["-q", "--at", "now", Self.sample])
        #expect(quiet.status == 2)
        #expect(quiet.stdout.isEmpty)
    }

    @Test func noVerifyIsLoudInEveryFormat() throws {
        let forged = Self.attacker.sign(payloadJSON: TestPayloads.transaction())
        let table = try CLI.run(["--no-verify", forged])
        #expect(table.status == 0)
        #expect(table.stdout.hasPrefix("UNVERIFIED — NOTHING WAS CHECKED (--no-verify)"))
        let json = try CLI.run(["--no-verify", "--format", "jsonl", forged])
        let object = try #require(try json.jsonObjects().first)
        #expect(object["status"] as? String == "unverified")
        #expect(object["verified"] as? Bool == false)
        #expect((object["reason"] as? String)?.hasPrefix("NOT VERIFIED") == true)
    }
}
