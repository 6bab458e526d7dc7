import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

@testable import JWSInspectCLI

/// `jwsinspect sign KIND`: every kind's header and claims exactly, the key options and their
/// environment variables, the errors and their exit statuses, and the one-line output.
@Suite(.timeLimit(.minutes(10))) struct SignCommandTests {
    static let issuer = "57246542-96fe-1a63-e053-0824d011072a"
    /// `iat` of the in-process runs (InProcess.now).
    static let iat = Int64(InProcess.now.timeIntervalSince1970)

    /// A folder holding `AuthKey_ABCDE12345.p8` (mode 600), and the key.
    struct Keys {
        let folder: URL
        let key: TestKey
        var path: String { folder.appendingPathComponent("AuthKey_ABCDE12345.p8").path }

        init() throws {
            folder = try CLI.temporaryDirectory()
            key = .p256()
            try write(key.privateKeyPEM, "AuthKey_ABCDE12345.p8")
        }

        @discardableResult
        func write(_ text: String, _ name: String, mode: Int = 0o600) throws -> String {
            let url = folder.appendingPathComponent(name)
            try CLI.write(text, to: url)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
            return url.path
        }

        var publicKey: PublicKey { PublicKey(subjectPublicKeyInfo: key.publicKeyDER)! }
    }

    /// Header and claims of a token, after checking its signature with `key`.
    static func decode(_ token: String, key: PublicKey) throws -> (header: [String: Any], claims: [String: Any]) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let signature = try Base64URL.decode(Array(parts[2].utf8))
        #expect(key.verifyES256(signature: signature, message: Array((parts[0] + "." + parts[1]).utf8)) == nil)
        func object(_ part: String) throws -> [String: Any] {
            let json = try JSONSerialization.jsonObject(with: Data(try Base64URL.decode(Array(part.utf8))))
            return try #require(json as? [String: Any])
        }
        return (try object(parts[0]), try object(parts[1]))
    }

    static func sign(_ arguments: [String], environment: [String: String] = [:]) -> InProcess.Result {
        InProcess.run(["sign"] + arguments, environment: environment)
    }

    /// The nonce claim: a lowercase UUID.
    static func expectNonce(_ claims: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) {
        let nonce = claims["nonce"] as? String ?? ""
        #expect(UUID(uuidString: nonce) != nil && nonce == nonce.lowercased(), sourceLocation: sourceLocation)
    }

    // MARK: Every kind

    @Test func apiToken() throws {
        let keys = try Keys()
        let base = ["api-token", "--key", keys.path, "--issuer-id", Self.issuer, "--bundle-id", "com.example.app"]
        let result = Self.sign(base)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("\n") && result.stdout.filter { $0 == "\n" }.count == 1)
        let (header, claims) = try Self.decode(String(result.stdout.dropLast()), key: keys.publicKey)
        #expect(header as NSDictionary == ["alg": "ES256", "kid": "ABCDE12345", "typ": "JWT"] as NSDictionary)
        let expected: [String: Any] = [
            "iss": Self.issuer, "iat": Self.iat, "exp": Self.iat + 300, "aud": "appstoreconnect-v1",
            "bid": "com.example.app",
        ]
        #expect(claims as NSDictionary == expected as NSDictionary)
        for (lifetime, seconds) in [("60", 60), ("90s", 90), ("10m", 600), ("1h", 3600), ("60m", 3600)] {
            let token = Self.sign(base + ["--lifetime", lifetime]).stdout.dropLast()
            #expect(
                try Self.decode(String(token), key: keys.publicKey).claims["exp"] as? Int64 == Self.iat + Int64(seconds)
            )
        }
    }

    @Test func offerEligibilityAndAdvancedCommerceTokens() throws {
        let keys = try Keys()
        let base = ["--key", keys.path, "--issuer-id", Self.issuer, "--bundle-id", "com.example.app"]
        let common: [String: Any] = ["iss": Self.issuer, "iat": Self.iat, "bid": "com.example.app"]
        let requestFile = try keys.write("\n  {\"operation\": \"CREATE_SUBSCRIPTION\", \"version\": \"1\"}\n", "r.json")
        let cases: [([String], [String: Any])] = [
            (
                ["promotional-offer", "--product-id", "pro", "--offer-id", "WINBACK"],
                ["aud": "promotional-offer", "productId": "pro", "offerIdentifier": "WINBACK"]
            ),
            (
                ["promotional-offer", "--product-id", "pro", "--offer-id", "W", "--transaction-id", "2000"],
                ["aud": "promotional-offer", "productId": "pro", "offerIdentifier": "W", "transactionId": "2000"]
            ),
            (
                [
                    "introductory-offer-eligibility", "--product-id", "pro", "--allow-introductory-offer", "false",
                    "--transaction-id", "1",
                ],
                [
                    "aud": "introductory-offer-eligibility", "productId": "pro", "allowIntroductoryOffer": false,
                    "transactionId": "1",
                ]
            ),
            (
                ["advanced-commerce", "--request", "{\"a\": [1, \"é\"]}"],
                ["aud": "advanced-commerce-api", "request": Data("{\"a\": [1, \"é\"]}".utf8).base64EncodedString()]
            ),
            (
                ["advanced-commerce", "--request", "@" + requestFile],
                [
                    "aud": "advanced-commerce-api",
                    "request": Data("{\"operation\": \"CREATE_SUBSCRIPTION\", \"version\": \"1\"}".utf8)
                        .base64EncodedString(),
                ]
            ),
        ]
        for (arguments, feature) in cases {
            let result = Self.sign(arguments + base)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            let (header, claims) = try Self.decode(String(result.stdout.dropLast()), key: keys.publicKey)
            #expect(header as NSDictionary == ["alg": "ES256", "kid": "ABCDE12345", "typ": "JWT"] as NSDictionary)
            Self.expectNonce(claims)
            var withoutNonce = claims
            withoutNonce["nonce"] = nil
            #expect(withoutNonce as NSDictionary == common.merging(feature) { $1 } as NSDictionary, "\(arguments)")
            #expect(claims["exp"] == nil)
            // --format json: the same token, with its header and claims decoded.
            let json = Self.sign(arguments + base + ["--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let token = try #require(object["jws"] as? String)
            let decoded = try Self.decode(token, key: keys.publicKey)
            #expect(object["header"] as? NSDictionary == decoded.header as NSDictionary)
            #expect(object["payload"] as? NSDictionary == decoded.claims as NSDictionary)
            #expect(object["token"] == nil && object["claims"] == nil)
        }
        // Two runs, two nonces.
        let a = try Self.decode(String(Self.sign(cases[0].0 + base).stdout.dropLast()), key: keys.publicKey)
        let b = try Self.decode(String(Self.sign(cases[0].0 + base).stdout.dropLast()), key: keys.publicKey)
        #expect(a.claims["nonce"] as? String != b.claims["nonce"] as? String)
    }

    @Test func promotionalOfferV1() throws {
        let keys = try Keys()
        let arguments = [
            "promotional-offer-v1", "--key", keys.path, "--bundle-id", "com.example", "--product-id", "productId",
            "--offer-id", "offerId", "--application-username", "AppAccountToken", "--nonce",
            "20FBA8A0-2B80-4A7D-A17F-85C1854727F8", "--timestamp", "1698148900000",
        ]
        let result = Self.sign(arguments)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let signature = try #require(Data(base64Encoded: String(result.stdout.dropLast())))
        let signed = [
            "com.example", "ABCDE12345", "productId", "offerId", "appaccounttoken",
            "20fba8a0-2b80-4a7d-a17f-85c1854727f8", "1698148900000",
        ].joined(separator: "\u{2063}")
        #expect(keys.publicKey.verifyDER(signature: Array(signature), message: Array(signed.utf8)))
        let json = Self.sign(arguments + ["--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["schemaVersion", "record", "type", "signature", "payload"])
        #expect(object["record"] as? String == "offerSignatureV1")
        let payload = try #require(object["payload"] as? [String: Any])
        #expect(payload["keyIdentifier"] as? String == "ABCDE12345")
        #expect(payload["nonce"] as? String == "20fba8a0-2b80-4a7d-a17f-85c1854727f8")
        #expect(payload["timestamp"] as? Int64 == 1_698_148_900_000)
        #expect(payload["applicationUsername"] as? String == "appaccounttoken")
        let jsonSignature = try #require(Data(base64Encoded: object["signature"] as? String ?? ""))
        #expect(keys.publicKey.verifyDER(signature: Array(jsonSignature), message: Array(signed.utf8)))
        // Without --nonce and --timestamp: a new lowercase nonce, and now in milliseconds.
        let generated = Self.sign(Array(arguments.prefix(11)) + ["--json"])
        let freshRecord = try JSONSerialization.jsonObject(with: Data(generated.stdout.utf8)) as? [String: Any]
        let fresh = try #require(freshRecord?["payload"] as? [String: Any])
        #expect(fresh["timestamp"] as? Int64 == Self.iat * 1000)
        let nonce = try #require(fresh["nonce"] as? String)
        #expect(UUID(uuidString: nonce) != nil && nonce == nonce.lowercased())
    }

    // MARK: Keys and credentials

    @Test func environmentVariablesSupplyWhatFlagsDoNot() throws {
        let keys = try Keys()
        let plain = try keys.write(keys.key.privateKeyPEM, "plain.p8")
        let environment = [
            "JWSINSPECT_KEY_FILE": plain, "JWSINSPECT_KEY_ID": "ENVKEY0001", "JWSINSPECT_ISSUER_ID": Self.issuer,
            "JWSINSPECT_BUNDLE_ID": "com.example.env",
        ]
        let result = Self.sign(["api-token"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let (header, claims) = try Self.decode(String(result.stdout.dropLast()), key: keys.publicKey)
        #expect(header["kid"] as? String == "ENVKEY0001")
        #expect(claims["iss"] as? String == Self.issuer && claims["bid"] as? String == "com.example.env")
        // Flags win over variables.
        let flags = Self.sign(
            ["api-token", "--key", keys.path, "--key-id", "FLAGKEY001", "--bundle-id", "com.example.flag"],
            environment: environment)
        let decoded = try Self.decode(String(flags.stdout.dropLast()), key: keys.publicKey)
        #expect(decoded.header["kid"] as? String == "FLAGKEY001")
        #expect(decoded.claims["bid"] as? String == "com.example.flag")
    }

    @Test func keyIDs() throws {
        let keys = try Keys()
        let plain = try keys.write(keys.key.privateKeyPEM, "plain.p8")
        let rest = ["--issuer-id", Self.issuer, "--bundle-id", "b"]
        let named = Self.sign(["api-token", "--key", keys.path] + rest)
        #expect(
            try Self.decode(String(named.stdout.dropLast()), key: keys.publicKey).header["kid"] as? String
                == "ABCDE12345")
        let noID = Self.sign(["api-token", "--key", plain] + rest)
        #expect(noID.status == 64 && noID.stdout.isEmpty)
        #expect(noID.stderr.contains("--key-id") && noID.stderr.contains("JWSINSPECT_KEY_ID"))
        let two = Self.sign(["api-token", "--key", keys.path, "--key", plain, "--key-id", "X"] + rest)
        #expect(two.status == 64 && two.stderr.contains("--key-id applies to a single --key"))
        let twoNamed = Self.sign(["api-token", "--key", keys.path, "--key", keys.path] + rest)
        #expect(twoNamed.status == 64 && twoNamed.stderr.contains("one --key signs"))
        // What inspect --key will use: every key with its ID.
        var options = KeyOptions()
        options.keyFiles = [keys.path, plain]
        #expect(throws: KeyOptions.Failure.self) { try options.developerKeys(environment: { _ in nil }) }
        let other = try keys.write(TestKey.p256().publicKeyPEM, "SubscriptionKey_PUB0000001.p8")
        options.keyFiles = [keys.path, other]
        let (developerKeys, warnings) = try options.developerKeys(environment: { _ in nil })
        #expect(developerKeys.map(\.keyID) == ["ABCDE12345", "PUB0000001"] && warnings.isEmpty)
    }

    @Test func readablePrivateKeyIsWarnedAbout() throws {
        let keys = try Keys()
        let open = try keys.write(keys.key.privateKeyPEM, "AuthKey_OPEN000001.p8", mode: 0o644)
        let result = Self.sign(["api-token", "--key", open, "--issuer-id", Self.issuer, "--bundle-id", "b"])
        #expect(result.status == 0 && result.stdout.filter { $0 == "\n" }.count == 1)
        #expect(
            result.stderr
                == "jwsinspect: warning: private key file '\(open)' is readable by group or others (chmod 600 '\(open)')\n"
        )
        #expect(!result.stderr.contains(keys.key.privateKeyPEM.split(separator: "\n")[1]))
    }

    // MARK: Errors

    @Test func errorsAndTheirStatuses() throws {
        let keys = try Keys()
        let certificate = TestPKI.issue(
            CertificateSpec(commonName: "x", notBefore: Date(timeIntervalSince1970: 0), notAfter: Date(), isCA: true),
            issuer: nil)
        let cert = try keys.write(certificate.pem, "AuthKey_CERT000001.p8")
        let publicPEM = try keys.write(keys.key.publicKeyPEM, "AuthKey_PUBLIC0001.p8")
        let key = ["--key", keys.path]
        let credentials = ["--issuer-id", Self.issuer, "--bundle-id", "b"]
        let cases: [([String], Int32, [String])] = [
            ([], 64, ["sign needs a kind"]),
            (["api-tokn"] + key + credentials, 64, ["no kind 'api-tokn'", "did you mean 'api-token'"]),
            (["api-token"] + credentials, 64, ["--key FILE", "JWSINSPECT_KEY_FILE"]),
            (["api-token", "--bundle-id", "b"] + key, 64, ["--issuer-id", "JWSINSPECT_ISSUER_ID"]),
            (["api-token", "--issuer-id", Self.issuer] + key, 64, ["--bundle-id", "JWSINSPECT_BUNDLE_ID"]),
            // No token is signed without a bid: Apple requires one in every kind.
            (["api-token", "--issuer-id", Self.issuer, "--bundle-id", ""] + key, 64, ["needs a non-empty bundle ID"]),
            (["api-token", "--issuer-id", "not-a-uuid", "--bundle-id", "b"] + key, 64, ["--issuer-id must be a UUID"]),
            (["promotional-offer", "--offer-id", "o"] + key + credentials, 64, ["needs --product-id"]),
            (
                ["promotional-offer", "--product-id", "p", "--offer-id", "o", "--lifetime", "5m"] + key + credentials,
                64, ["does not take --lifetime"]
            ),
            (["advanced-commerce", "--request", "[1]"] + key + credentials, 64, ["not an object"]),
            (["advanced-commerce", "--request", "{x}"] + key + credentials, 64, ["is not JSON"]),
            (["advanced-commerce", "--request", "@/nonexistent/r.json"] + key + credentials, 66, ["cannot read"]),
            (["api-token", "--key", "/nonexistent/AuthKey_A.p8"] + credentials, 66, ["cannot read key file"]),
            (["api-token", "--key", cert] + credentials, 64, ["a certificate, not a key"]),
            (["api-token", "--key", publicPEM] + credentials, 64, ["is a public key"]),
            (
                [
                    "promotional-offer-v1", "--product-id", "p", "--offer-id", "o", "--application-username", "u",
                    "--nonce", "nope", "--bundle-id", "b",
                ] + key, 64, ["--nonce must be a UUID"]
            ),
        ]
        for lifetime in ["0", "3601", "61m", "2h", "5x", "", "-5", "m", "99999999999s"] {
            let result = Self.sign(["api-token", "--lifetime", lifetime] + key + credentials)
            #expect(result.status == 64 && result.stderr.contains("--lifetime must be"), "\(lifetime)")
        }
        for (arguments, status, phrases) in cases {
            let result = Self.sign(arguments)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            for phrase in phrases { #expect(result.stderr.contains(phrase), "\(arguments): \(result.stderr)") }
            #expect(result.stderr.split(separator: "\n").count <= 2, "\(result.stderr)")
        }
    }

    @Test func writeErrorIsExit74() throws {
        let keys = try Keys()
        let result = InProcess.run(
            ["sign", "api-token", "--key", keys.path, "--issuer-id", Self.issuer, "--bundle-id", "b"],
            failWritesWith: EIO)
        #expect(result.status == 74 && result.stderr.contains("write error"))
    }

    /// The built binary: exactly one line on standard output, nothing on standard error, so
    /// that TOKEN=$(jwsinspect sign api-token …) works.
    @Test func binaryPrintsOneLine() throws {
        let keys = try Keys()
        let result = try CLI.run([
            "sign", "api-token", "--key", keys.path, "--issuer-id", Self.issuer, "--bundle-id", "b",
        ])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty)
        let claims = try Self.decode(String(lines[0]), key: keys.publicKey).claims
        let iat = try #require(claims["iat"] as? Int64)
        #expect(abs(iat - Int64(Date().timeIntervalSince1970)) < 60)
        #expect(claims["exp"] as? Int64 == iat + 300)
    }
}
