import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

@testable import JWSInspectCLI

/// `inspect --key`: what `sign` makes verifies with the key it was made with, and each failure
/// class gets its exit status (issue 13).
@Suite struct InspectKeyTests {
    /// An Advanced Commerce one-time charge Apple's request model accepts.
    static let oneTimeCharge =
        #"{"operation":"CREATE_ONE_TIME_CHARGE","version":"1","requestInfo":{"requestReferenceId":"#
        + #""d1c3c5a8-5a1b-4e62-8f0f-2b1c4d5e6f70"},"currency":"USD","item":{"SKU":"coins.100","#
        + #""description":"100 coins","displayName":"Coins","price":990},"taxCode":"C003-00-2"}"#

    static let credentials = ["--issuer-id", SignCommandTests.issuer, "--bundle-id", "com.example.app"]

    static func apiToken(_ keys: SignCommandTests.Keys, lifetime: String = "5m") throws -> String {
        let signed = SignCommandTests.sign(["api-token", "--key", keys.path, "--lifetime", lifetime] + credentials)
        try #require(signed.status == 0, "\(signed.stderr)")
        return signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aSignedTokenVerifiesWithItsKey() throws {
        let keys = try SignCommandTests.Keys()
        let token = try Self.apiToken(keys)
        let result = InProcess.run(["--key", keys.path, "--format", "json", token])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains(#""type": "apiToken""#), "\(result.stdout)")
        // The private key never appears in any output.
        let secret = keys.key.privateKeyPEM.split(separator: "\n")[1]
        #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
        // The public key works too, with its ID given.
        let publicPath = try keys.write(keys.key.publicKeyPEM, "public.pem", mode: 0o644)
        #expect(InProcess.run(["--key", publicPath, "--key-id", "ABCDE12345", "-q", token]).status == 0)
    }

    @Test func eachFailureClassHasItsStatus() throws {
        let keys = try SignCommandTests.Keys()
        let token = try Self.apiToken(keys)
        let other = try SignCommandTests.Keys()
        let otherPublic = try other.write(other.key.publicKeyPEM, "other.pem", mode: 0o644)
        // No key given: no trusted key (2), naming the kid it needs.
        let none = InProcess.run(["-q", token])
        #expect(none.status == 2)
        // Keys of other IDs (1), naming both.
        let otherID = InProcess.run(["--key", otherPublic, "--key-id", "ZZZZZZZZZZ", token])
        #expect(otherID.status == 1)
        #expect(otherID.stdout.contains("ABCDE12345") && otherID.stdout.contains("ZZZZZZZZZZ"))
        // Another key with the same ID (1).
        #expect(InProcess.run(["--key", otherPublic, "--key-id", "ABCDE12345", "-q", token]).status == 1)
        // Checked an hour later: expired (7).
        let later = ISO8601.string(InProcess.now.addingTimeInterval(3600))
        #expect(InProcess.run(["--key", keys.path, "--at", later, "-q", token]).status == 7)
        // Another bundle ID (4).
        #expect(InProcess.run(["--key", keys.path, "--bundle-id", "com.example.other", "-q", token]).status == 4)
        // A key file that cannot be read (66), one that is not a key (64).
        #expect(InProcess.run(["--key", keys.folder.path + "/missing.p8", "-q", token]).status == 66)
        let garbage = try keys.write("not a key\n", "AuthKey_GARBAGE.p8")
        let unusable = InProcess.run(["--key", garbage, "-q", token])
        #expect(unusable.status == 64)
        #expect(unusable.stderr.contains("is not a PEM key"))
    }

    /// `token` with its `bid` member written as `replacement` (nil: removed), signed again with `key`.
    static func resigned(_ token: String, bid replacement: String?, key: TestKey) throws -> String {
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let header = String(decoding: try Base64URL.decode(Array(parts[0].utf8)), as: UTF8.self)
        let claims = String(decoding: try Base64URL.decode(Array(parts[1].utf8)), as: UTF8.self)
        let bid = #","bid":"com.example.app""#
        try #require(claims.contains(bid), "\(claims)")
        let changed = claims.replacingOccurrences(of: bid, with: replacement.map { #","bid":\#($0)"# } ?? "")
        return TestPKI.compactJWS(headerJSON: header, payloadJSON: changed, key: key)
    }

    /// Apple requires `bid` in every developer-signed kind: an API token without one is a 401.
    @Test(arguments: [
        ["api-token"], ["promotional-offer", "--product-id", "pro.monthly", "--offer-id", "WINBACK"],
        [
            "introductory-offer-eligibility", "--product-id", "pro.monthly", "--allow-introductory-offer", "false",
            "--transaction-id", "2000000000000000",
        ],
        ["advanced-commerce", "--request", InspectKeyTests.oneTimeCharge],
    ])
    func aTokenWithoutItsBundleIDFailsItsClaims(_ kind: [String]) throws {
        let keys = try SignCommandTests.Keys()
        let signed = SignCommandTests.sign(kind + ["--key", keys.path] + Self.credentials)
        try #require(signed.status == 0, "\(signed.stderr)")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(InProcess.run(["--key", keys.path, "-q", token]).status == 0)
        let cases: [(String?, String)] = [
            (nil, "bid: no bid; Apple requires the app's bundle ID (case-sensitive) in "),
            (#""""#, "bid: bid is empty; Apple requires the app's bundle ID"),
            ("7", "bid: bid is a number, expected the bundle ID string"),
        ]
        for (replacement, reason) in cases {
            let changed = try Self.resigned(token, bid: replacement, key: keys.key)
            let result = InProcess.run(["--key", keys.path, "--format", "jsonl", changed])
            #expect(result.status == 7, "\(kind[0]) \(replacement ?? "no bid"): \(result.stdout)")
            #expect(result.stdout.contains(#""status":"invalid-claims""#), "\(result.stdout)")
            #expect(result.stdout.contains(reason), "\(kind[0]): \(result.stdout)")
        }
        if kind == ["api-token"] {
            let table = InProcess.run(["--key", keys.path, try Self.resigned(token, bid: nil, key: keys.key)])
            #expect(
                table.stdout.contains(
                    "  FAIL  bid        no bid; Apple requires the app's bundle ID (case-sensitive) "
                        + "in an App Store Server API token and answers 401 without it\n"), "\(table.stdout)")
        }
    }

    @Test func theKeyComesFromTheEnvironmentToo() throws {
        let keys = try SignCommandTests.Keys()
        let token = try Self.apiToken(keys)
        #expect(InProcess.run(["-q", token], environment: ["JWSINSPECT_KEY_FILE": keys.path]).status == 0)
    }

    @Test func appStoreDataIsUnchangedByKeys() throws {
        let keys = try SignCommandTests.Keys()
        let sample = try String(
            contentsOf: CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws"), encoding: .utf8)
        let plain = InProcess.run(["--format", "jsonl", sample])
        let withKey = InProcess.run(["--key", keys.path, "--format", "jsonl", sample])
        #expect(plain.status == withKey.status && plain.stdout == withKey.stdout)
    }

    /// An Advanced Commerce in-app request is checked as Apple's request models define it
    /// (issue 52): its operation, version, requestInfo and each member's type, length, range
    /// and value; a request that breaks one is `invalid-claims` (exit 7) naming the member.
    @Test(arguments: [
        (#"{"operation":"BOGUS","items":"notalist"}"#, "request.operation is 'BOGUS', expected CREATE_SUBSCRIPTION"),
        (
            oneTimeCharge.replacingOccurrences(of: #""price":990"#, with: #""price":-1"#),
            "request.item.price is -1, expected at least 0"
        ),
        (
            oneTimeCharge.replacingOccurrences(
                of: #""displayName":"Coins""#, with: #""displayName":"\#(String(repeating: "x", count: 31))""#),
            "request.item.displayName is 31 characters, more than Apple's 30"
        ),
        (
            oneTimeCharge.replacingOccurrences(of: "d1c3c5a8-5a1b-4e62-8f0f-2b1c4d5e6f70", with: "ref-1"),
            "request.requestInfo.requestReferenceId is not a UUID"
        ),
        (oneTimeCharge.replacingOccurrences(of: #","taxCode":"C003-00-2""#, with: ""), "request.taxCode is missing"),
        (
            #"{"operation":"MODIFY_SUBSCRIPTION","version":"1","requestInfo":{"requestReferenceId":"#
                + #""d1c3c5a8-5a1b-4e62-8f0f-2b1c4d5e6f70"},"transactionId":"2000000000000010","#
                + #""addItems":[{"SKU":"a","description":"A","displayName":"A","price":100,"offer":{"periodCount":13,"#
                + #""price":0,"period":"P1M","reason":"WIN_BACK"}}]}"#,
            "request.retainBillingCycle is missing; request.addItems[0].offer.periodCount is 13, expected 1 to 12"
        ),
    ])
    func anAdvancedCommerceRequestIsCheckedAsApplesModel(_ request: String, _ problem: String) throws {
        let keys = try SignCommandTests.Keys()
        let signed = SignCommandTests.sign(
            ["advanced-commerce", "--request", request, "--key", keys.path] + Self.credentials)
        try #require(signed.status == 0, "\(signed.stderr)")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let result = InProcess.run(["--key", keys.path, "--brief", token])
        #expect(result.status == 7, "\(result.stdout)")
        #expect(result.stdout.contains(problem), "\(result.stdout)")
        // The same request, whole and right, verifies.
        let good = SignCommandTests.sign(
            ["advanced-commerce", "--request", Self.oneTimeCharge, "--key", keys.path] + Self.credentials)
        #expect(
            InProcess.run(["--key", keys.path, "-q", good.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
                .status == 0)
    }
}
