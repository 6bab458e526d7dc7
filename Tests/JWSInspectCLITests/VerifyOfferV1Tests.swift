import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

@testable import JWSInspectCLI

/// `jwsinspect verify-offer-v1`: signatures `sign promotional-offer-v1` makes verify with the
/// private and the public key, every changed field or key fails (exit 1) except the case of
/// the lowercased ones, the table and JSON show the signed string, an old timestamp is
/// reported, and usage errors exit 64.
@Suite struct VerifyOfferV1Tests {
    typealias Keys = SignCommandTests.Keys

    static let nonce = "20fba8a0-2b80-4a7d-a17f-85c1854727f8"
    /// An hour before the in-process runs' now.
    static let recent = Int64(InProcess.now.timeIntervalSince1970 * 1000) - 3_600_000

    /// The fields, as flags.
    static func fields(
        bundle: String = "com.example", product: String = "productId", offer: String = "offerId",
        username: String = "AppAccountToken", nonce: String = VerifyOfferV1Tests.nonce,
        timestamp: Int64 = VerifyOfferV1Tests.recent
    ) -> [String] {
        [
            "--bundle-id", bundle, "--product-id", product, "--offer-id", offer, "--application-username", username,
            "--nonce", nonce, "--timestamp", String(timestamp),
        ]
    }

    /// A signature `sign promotional-offer-v1` makes over `fields()`.
    static func signature(_ keys: Keys, timestamp: Int64 = recent) throws -> String {
        let result = InProcess.run(
            ["sign", "promotional-offer-v1", "--key", keys.path] + fields(timestamp: timestamp))
        try #require(result.status == 0, "\(result.stderr)")
        return String(result.stdout.dropLast())
    }

    static func verify(_ arguments: [String], environment: [String: String] = [:]) -> InProcess.Result {
        InProcess.run(["verify-offer-v1"] + arguments, environment: environment)
    }

    @Test func aSignatureSignMakesVerifiesWithThePrivateAndThePublicKey() throws {
        let keys = try Keys()
        let signature = try Self.signature(keys)
        let withPrivate = Self.verify(["--key", keys.path] + Self.fields() + [signature])
        #expect(withPrivate.status == 0 && withPrivate.stderr.isEmpty, "\(withPrivate.stdout)\(withPrivate.stderr)")
        #expect(withPrivate.stdout.hasPrefix("VALID — legacy promotional offer signature (V1), verified with"))
        let publicPEM = try keys.write(keys.key.publicKeyPEM, "public.pem", mode: 0o644)
        let withPublic = Self.verify(["--key", publicPEM, "--key-id", "ABCDE12345"] + Self.fields() + [signature])
        #expect(withPublic.status == 0 && withPublic.stderr.isEmpty, "\(withPublic.stdout)\(withPublic.stderr)")
        // The key and the bundle ID from the environment, as for sign.
        let environment = [
            "JWSINSPECT_KEY_FILE": publicPEM, "JWSINSPECT_KEY_ID": "ABCDE12345", "JWSINSPECT_BUNDLE_ID": "com.example",
        ]
        let fromEnvironment = Self.verify(Array(Self.fields().dropFirst(2)) + [signature], environment: environment)
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        // Without padding, and with the newline of a copy, it is the same signature.
        let unpadded = String(signature.drop { $0 == "=" }.reversed().drop { $0 == "=" }.reversed()) + "\n"
        #expect(Self.verify(["--key", keys.path] + Self.fields() + [unpadded]).status == 0)
    }

    @Test func eachChangedFieldFailsButTheCaseOfTheLowercasedOnesDoesNot() throws {
        let keys = try Keys()
        let signature = try Self.signature(keys)
        let key = ["--key", keys.path]
        let changed: [(String, [String])] = [
            ("bundle", Self.fields(bundle: "com.example.other")),
            ("bundle case", Self.fields(bundle: "com.Example")),
            ("product", Self.fields(product: "productid")),
            ("offer", Self.fields(offer: "offer")),
            ("username", Self.fields(username: "AppAccountToken2")),
            ("empty username", Self.fields(username: "")),
            ("nonce", Self.fields(nonce: "20fba8a0-2b80-4a7d-a17f-85c1854727f9")),
            ("timestamp", Self.fields(timestamp: Self.recent + 1)),
        ]
        for (name, fields) in changed {
            let result = Self.verify(key + fields + [signature])
            #expect(result.status == 1, "\(name): \(result.stdout)\(result.stderr)")
            #expect(result.stdout.hasPrefix("INVALID (invalid-signature)"), "\(name)")
            #expect(result.stdout.contains("  FAIL  signature  does not verify"), "\(name)")
        }
        let sameCase: [(String, [String])] = [
            ("username lowercase", Self.fields(username: "appaccounttoken")),
            ("username uppercase", Self.fields(username: "APPACCOUNTTOKEN")),
            ("nonce uppercase", Self.fields(nonce: Self.nonce.uppercased())),
        ]
        for (name, fields) in sameCase {
            #expect(Self.verify(key + fields + [signature]).status == 0, "\(name)")
        }
        // Another key ID is another signed string.
        #expect(Self.verify(key + ["--key-id", "OTHERKEY12"] + Self.fields() + [signature]).status == 1)
    }

    @Test func anotherKeyFails() throws {
        let keys = try Keys()
        let other = try Keys()
        let signature = try Self.signature(keys)
        let result = Self.verify(["--key", other.path] + Self.fields() + [signature])
        #expect(result.status == 1)
        #expect(result.stdout.contains("does NOT verify with the developer key ABCDE12345"))
    }

    @Test func theTableShowsTheSignedStringWithTheSeparatorVisible() throws {
        let keys = try Keys()
        let result = Self.verify(["--key", keys.path] + Self.fields() + [try Self.signature(keys)])
        let separator = VerifyOfferV1Command.visibleSeparator
        let signed =
            ["com.example", "ABCDE12345", "productId", "offerId", "appaccounttoken", Self.nonce]
            .joined(separator: separator) + separator + String(Self.recent)
        #expect(result.stdout.contains("SIGNED STRING  (U+2063 INVISIBLE SEPARATOR shown as ⟨U+2063⟩)\n  \(signed)\n"))
        #expect(!result.stdout.unicodeScalars.contains("\u{2063}"))
        #expect(
            result.stdout.contains("  ok    timestamp  2025-05-31T23:00:00.000Z (1 hour ago): not older than 24 hours"))
        #expect(result.stdout.contains("  applicationUsername  appaccounttoken  (given as AppAccountToken;"))
        #expect(!result.stdout.contains("warning"))
    }

    @Test func anOldTimestampIsReportedAndTheExitStatusStaysTheSignatures() throws {
        let keys = try Keys()
        let old: Int64 = 1_698_148_900_000
        let arguments = ["--key", keys.path] + Self.fields(timestamp: old) + [try Self.signature(keys, timestamp: old)]
        let result = Self.verify(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("warning: the timestamp is more than 24 hours old: the App Store refuses"))
        #expect(result.stdout.contains("  warn  timestamp  2023-10-24T12:01:40.000Z (1 year ago): older than 24 hours"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(Self.verify(arguments + ["--json"]).stdout.utf8))
                as? [String: Any])
        #expect(json["olderThan24Hours"] as? Bool == true)
        // Exactly 24 hours old is still accepted; a millisecond more is not.
        let day = Int64(InProcess.now.timeIntervalSince1970 * 1000) - PromotionalOfferV1.lifetime
        for (stamp, isOld) in [(day, false), (day - 1, true)] {
            let offer = PromotionalOfferV1(
                bundleID: "b", keyID: "k", productID: "p", offerID: "o", applicationUsername: "", nonce: UUID(),
                timestamp: stamp)
            #expect(offer.isOlderThanLifetime(at: InProcess.now) == isOld)
        }
    }

    @Test func jsonOutputParses() throws {
        let keys = try Keys()
        let signature = try Self.signature(keys)
        let result = Self.verify(["--key", keys.path, "--format", "json"] + Self.fields() + [signature])
        #expect(result.status == 0)
        // The separator is escaped, so it can be seen.
        #expect(result.stdout.contains("com.example\\u2063ABCDE12345\\u2063productId"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        // The keys every record has, then what was signed.
        #expect(Set(object.keys) == Set(JSONRecord.keys + ["key", "signedString", "olderThan24Hours"]))
        #expect(
            result.stdout.hasPrefix(
                "{\n  \"schemaVersion\": 1,\n  \"record\": \"offerVerificationV1\",\n  \"source\": \"command line\",\n"
                    + "  \"type\": \"promotionalOfferSignatureV1\","))
        #expect(object["status"] as? String == "valid" && object["verified"] as? Bool == true)
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.map { $0["name"] as? String } == ["signature", "timestamp"])
        #expect((object["reason"] as? String)?.hasPrefix("ECDSA P-256 SHA-256 signature (DER)") == true)
        #expect((object["summary"] as? String)?.contains(": verified with the developer key ABCDE12345.") == true)
        #expect(object["authentic"] as? Bool == true && (object["key"] as? String)?.hasPrefix("EC P-256") == true)
        let signed = try #require(object["signedString"] as? String)
        #expect(signed.components(separatedBy: "\u{2063}").count == 7)
        let fields = try #require(object["payload"] as? [String: Any])
        #expect(fields["applicationUsername"] as? String == "appaccounttoken")
        #expect(fields["keyIdentifier"] as? String == "ABCDE12345")
        #expect(fields["timestamp"] as? Int64 == Self.recent)
        #expect((object["display"] as? [String: Any])?["timestamp"] as? String == "2025-05-31T23:00:00.000Z")
        #expect(object["olderThan24Hours"] as? Bool == false)
        #expect((object["checkTime"] as? [String: Any])?["time"] as? String == "2025-06-01T00:00:00.000Z")
        let failed = Self.verify(["--key", keys.path, "--json"] + Self.fields(offer: "x") + [signature])
        #expect(failed.status == 1)
        let failure = try #require(try JSONSerialization.jsonObject(with: Data(failed.stdout.utf8)) as? [String: Any])
        #expect(failure["status"] as? String == "invalid-signature" && failure["verified"] as? Bool == false)
        #expect(((failure["checks"] as? [[String: Any]])?.first?["passed"]) as? Bool == false)
        // A write error is exit 74.
        let unwritable = InProcess.run(
            ["verify-offer-v1", "--key", keys.path] + Self.fields() + [signature], failWritesWith: ENOSPC)
        #expect(unwritable.status == 74)
    }

    /// StoreKit takes the V1 signature in standard base64 only: URL-safe base64 (`tr '+/' '-_'`),
    /// both alphabets mixed, or characters of neither are usage errors (64) saying which was given.
    @Test func aSignatureNotInStandardBase64SaysWhichAlphabetItIsIn() throws {
        let keys = try Keys()
        var signature = try Self.signature(keys)
        // A signature without + or / is the same text in both alphabets: make one with them.
        for _ in 0..<50 where !signature.contains(where: { $0 == "+" || $0 == "/" }) {
            signature = try Self.signature(keys)
        }
        try #require(signature.contains { $0 == "+" || $0 == "/" })
        let urlSafe = String(signature.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
        let cases: [(String, String)] = [
            (
                urlSafe,
                "is not standard base64: it is URL-safe base64 (base64url: - and _ where standard base64 has + and /), "
                    + "which StoreKit refuses; convert it with tr '_-' '/+'"
            ),
            (
                String(urlSafe.trimmingCharacters(in: ["="])),
                "it is URL-safe base64 (base64url: - and _ where standard base64 has + and /), which StoreKit "
                    + "refuses; convert it with tr '_-' '/+'"
            ),
            ("ME-+" + signature.dropFirst(4), "it mixes URL-safe base64's - and _ with standard base64's + and /"),
            ("MEUC%" + signature.dropFirst(5), "it has '%' (character 5), which no base64 alphabet has"),
            ("MEUCé" + signature.dropFirst(5), "it has U+00E9 (character 5), which no base64 alphabet has"),
            ("MEUC " + signature.dropFirst(5), "it has a space (character 5), which no base64 alphabet has"),
            (
                String(signature.prefix(40)) + "\n" + signature.dropFirst(40),
                "it has a line break (character 41), which no base64 alphabet has"
            ),
            ("MEUC=" + signature.dropFirst(5), "it has = at character 5, before its end: = only pads the end"),
            ("MEUCIQ===", "it ends with 3 =, and base64 pads with at most 2"),
            ("MEUCI", "its 5 characters are a length no base64 text has"),
            ("MEUCIQ=", "it is padded to 7 characters, not a multiple of 4"),
        ]
        for (given, reason) in cases {
            let result = Self.verify(["--key", keys.path] + Self.fields() + [given])
            #expect(result.status == 64, "\(given): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 2, "\(result.stderr)")
            #expect(lines.first?.hasSuffix(reason) == true, "\(result.stderr)")
        }
        #expect(Self.verify(["--key", keys.path] + Self.fields() + [signature]).status == 0)
    }

    @Test func usageErrorsAndAnUnreadableKey() throws {
        let keys = try Keys()
        let signature = try Self.signature(keys)
        let key = ["--key", keys.path]
        let fields = Self.fields()
        let cases: [([String], String)] = [
            (key + fields, "verify-offer-v1 needs the SIGNATURE"),
            (key + fields.filter { $0 != "--offer-id" && $0 != "offerId" } + [signature], "needs --offer-id"),
            (key + Array(fields.dropLast(2)) + [signature], "needs --timestamp"),
            (key + Array(fields.dropFirst(2)) + [signature], "a bundle ID is needed: --bundle-id"),
            (fields + [signature], "a key is needed: --key FILE"),
            (key + Self.fields(nonce: "not-a-uuid") + [signature], "--nonce must be a UUID"),
            (key + fields.dropLast() + ["-1", signature], "--timestamp must be UNIX milliseconds"),
            (key + fields.dropLast() + ["1e3", signature], "--timestamp must be UNIX milliseconds"),
            (key + fields.dropLast() + ["253402300800000", signature], "--timestamp must be UNIX milliseconds"),
            (key + fields + ["not base64!"], "is not standard base64"),
            (
                // base64url (a random signature need not hold "+" or "/": make sure it holds "_" and "-").
                key + fields + [
                    "_-"
                        + signature.dropFirst(2).replacingOccurrences(of: "+", with: "-")
                        .replacingOccurrences(of: "/", with: "_")
                ],
                "is not standard base64"
            ),
            (key + fields + [Data(repeating: 7, count: 64).base64EncodedString()], "is not a DER signature"),
            (key + fields + [signature, signature], "takes one SIGNATURE, not 2"),
        ]
        for (arguments, message) in cases {
            let result = Self.verify(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stderr.contains("usage: jwsinspect verify-offer-v1"))
            #expect(result.stdout.isEmpty)
        }
        let missing = Self.verify(["--key", keys.folder.appendingPathComponent("nope.p8").path] + fields + [signature])
        #expect(missing.status == 66)
        // The private key is never printed.
        let body = keys.key.privateKeyPEM.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
        let outputs = [Self.verify(key + fields + [signature]), Self.verify(key + fields + ["--json", signature])]
        #expect(outputs.allSatisfy { !$0.stdout.contains(body) && !$0.stderr.contains(body) })
    }
}
