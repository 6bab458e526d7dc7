import AppStoreTestData
import Foundation
import JWSInspectCore
import StrictJSONParser
import TestPKI
import Testing

@testable import JWSInspectCLI

/// A JSON object that names a member twice reads two ways: Foundation kept the first, Python,
/// Node and Go keep the last. `{"signedPayload":"<genuine>","signedPayload":"<unsigned>"}`
/// passed `jwsinspect -q && echo authentic` while a backend read the unsigned one (issue 23,
/// item 8). Wherever JSON comes from input it is refused: malformed (exit 5), one result
/// naming the member and where, and neither copy verified.
@Suite(.timeLimit(.minutes(10))) struct DuplicateMemberCLITests {
    static let pki = ExecutableTests.pki
    static let genuine = pki.sign(payloadJSON: TestPayloads.notification())
    /// What an attacker appends: an unsigned REFUND (`alg: none`).
    static let forged =
        TestPKI.base64URL(Array(#"{"alg":"none"}"#.utf8)) + "."
        + TestPKI.base64URL(Array(#"{"notificationType":"REFUND","signedDate":1735689600000}"#.utf8)) + "."

    /// Where the last `needle` starts in `text`, in bytes.
    static func lastOffset(of needle: String, in text: String) -> Int {
        guard let range = text.range(of: needle, options: [.backwards, .literal]) else { return -1 }
        return text.utf8.distance(from: text.startIndex, to: range.lowerBound)
    }

    /// A payload with `tail` appended inside its object, signed properly, and the reason the
    /// second `name` (written as `second`) gets.
    static func payload(_ tail: String, second: String, name: String) -> (token: String, reason: String) {
        var text = TestPayloads.transaction()
        text.removeLast()
        text += tail + "}"
        let reason = "the payload names member \"\(name)\" twice (at byte \(lastOffset(of: second, in: text)))"
        return (pki.sign(payloadJSON: text), reason)
    }

    enum Place: String, CaseIterable, CustomTestStringConvertible {
        case notificationBody, prettyDocument, jsonLines, verifyReceiptBody
        case payload, escapedName, nestedObject, canonicallyEquivalentName, header, developerClaims
        var testDescription: String { rawValue }
    }

    /// One input per place: its text, extra arguments, and the statuses and reason expected
    /// (the reason of the one malformed result).
    static func input(_ place: Place) throws -> (stdin: String, arguments: [String], statuses: [String], reason: String)
    {
        let malformed = ["malformed"]
        switch place {
        case .notificationBody:
            let body = #"{"signedPayload":"\#(genuine)","signedPayload":"\#(forged)"}"#
            return (
                body + "\n", [], malformed,
                #"the JSON document names member "signedPayload" twice at line 1"#
            )
        case .prettyDocument:
            let body = "{\n  \"signedPayload\": \"\(genuine)\",\n  \"x\": 1,\n  \"signedPayload\": \"\(forged)\"\n}\n"
            return (body, [], malformed, #"the JSON document names member "signedPayload" twice at line 4"#)
        case .jsonLines:
            // One document of three is refused; the others are verified as ever.
            let lines = [
                #"{"signedPayload":"\#(genuine)"}"#, #"{"event":{"id":1,"id":2},"signedPayload":"\#(genuine)"}"#,
                #"{"signedPayload":"\#(genuine)"}"#,
            ]
            return (
                lines.joined(separator: "\n") + "\n", [], ["valid", "malformed", "valid"],
                #"the JSON document names member "id" twice at line 2"#
            )
        case .verifyReceiptBody:
            let receipt = try Data(
                contentsOf: CLI.packageRoot.appendingPathComponent(
                    "Tests/Vectors/receipts/02-xcode-apple-backyardbirds-1iap.der")
            ).base64EncodedString()
            let body = #"{"receipt-data":"\#(receipt)","password":"x","receipt-data":"\#(receipt)"}"#
            return (body, [], malformed, #"the JSON document names member "receipt-data" twice at line 1"#)
        case .payload:
            let (token, reason) = payload(
                #","bundleId":"com.attacker""#, second: #""bundleId":"com.attacker""#, name: "bundleId")
            return (token, [], malformed, reason)
        case .escapedName:
            let (token, reason) = payload(
                #","bundl\u0065Id":"com.attacker""#, second: #""bundl\u0065Id""#, name: "bundleId")
            return (token, [], malformed, reason)
        case .nestedObject:
            let (token, reason) = payload(
                #","offer":{"id":"a","type":1,"id":"b"}"#, second: #""id":"b""#, name: "id")
            return (token, [], malformed, reason)
        case .canonicallyEquivalentName:
            // U+00E9, then e and U+0301: one key for Foundation's dictionaries, two for Python.
            let (token, reason) = payload(#","\u00e9":1,"e\u0301":2"#, second: #""e\u0301""#, name: "e\u{301}")
            return (token, [], malformed, reason)
        case .header:
            let header =
                #"{"alg":"ES256","x5c":[\#(pki.x5c.map(TestPKI.jsonString).joined(separator: ","))],"alg":"none"}"#
            let token = TestPKI.compactJWS(
                headerJSON: header, payloadJSON: TestPayloads.transaction(), key: pki.leaf.key)
            let reason = "the header names member \"alg\" twice (at byte \(lastOffset(of: #""alg""#, in: header)))"
            return (token, [], malformed, reason)
        case .developerClaims:
            let keys = try SignCommandTests.Keys()
            let iat = SignCommandTests.iat
            let claims =
                #"{"iss":"\#(SignCommandTests.issuer)","iat":\#(iat),"exp":\#(iat + 300),"aud":"appstoreconnect-v1","#
                + #""bid":"com.example.app","exp":\#(iat + 86_400 * 365)}"#
            let token = TestPKI.compactJWS(
                headerJSON: #"{"alg":"ES256","kid":"ABCDE12345","typ":"JWT"}"#, payloadJSON: claims, key: keys.key)
            let reason = "the payload names member \"exp\" twice (at byte \(lastOffset(of: #""exp""#, in: claims)))"
            return (token, ["--key", keys.path], malformed, reason)
        }
    }

    @Test(arguments: Place.allCases)
    func aMemberNamedTwiceIsMalformedWherever(_ place: Place) throws {
        let (stdin, arguments, statuses, reason) = try Self.input(place)
        let result = InProcess.run(["--format", "jsonl", "--root", ExecutableTests.rootFile] + arguments, stdin: stdin)
        #expect(result.status == 5, "\(result.stderr)")
        let records = try StrictJSON.lines(result.stdout)
        #expect(records.map { $0["status"] as? String } == statuses, "\(result.stdout)")
        let refused = try #require(records.first { $0["status"] as? String == "malformed" })
        #expect(refused["reason"] as? String == reason)
        #expect(refused["verified"] as? Bool == false && refused["payload"] is NSNull)
        // The README's gate: no "authentic" for any of them.
        #expect(InProcess.run(["-q", "--root", ExecutableTests.rootFile] + arguments, stdin: stdin).status == 5)
    }

    @Test func theDocumentIsNamedAsTheSource() throws {
        let (stdin, _, _, _) = try Self.input(.notificationBody)
        let file = try CLI.temporaryDirectory().appendingPathComponent("body.json")
        try CLI.write(stdin, to: file)
        let result = InProcess.run(["-q", "--root", ExecutableTests.rootFile, file.path])
        #expect(result.status == 5)
        #expect(
            result.stderr
                == "jwsinspect: \(file.path): malformed: the JSON document names member \"signedPayload\" twice at line 1\n"
        )
    }

    /// `fetch`: an answer naming a member twice is an unusable answer (69), never verified.
    @Test func aFetchAnswerNamingAMemberTwiceIsUnusable() throws {
        let harness = try FetchHarness()
        let token = FetchHarness.chain.sign(payloadJSON: TestPayloads.transaction(bundleId: harness.key.bundleID))
        let body = #"{"signedTransactionInfo":"\#(token)","signedTransactionInfo":"\#(Self.forged)"}"#
        harness.production.enqueue(
            .status(200, headers: ["Content-Type": "application/json"], body: body),
            forPathPrefix: "/inApps/v1/transactions/")
        let result = harness.run(["transaction", MockAppStoreServer.Seed.coins, "--format", "jsonl"])
        #expect(result.status == 69, "\(result.stderr)")
        let offset = Self.lastOffset(of: #""signedTransactionInfo""#, in: body)
        #expect(
            result.stderr.contains(
                "unusable answer: HTTP 200 with a body that names member \"signedTransactionInfo\" twice (at byte \(offset))"
            ),
            "\(result.stderr)")
        let records = FetchHarness.records(result.stdout)
        #expect(records.count == 1 && records[0]["status"] as? String == "malformed", "\(result.stdout)")
    }

    /// `sign --request`: the request Apple's server reads must not read two ways either (a
    /// usage error, as any other unusable `--request`); a signed `request` claim naming a
    /// member twice fails the claims check.
    @Test func aRequestNamingAMemberTwiceIsRefused() throws {
        let keys = try SignCommandTests.Keys()
        let credentials = ["--key", keys.path, "--issuer-id", SignCommandTests.issuer, "--bundle-id", "b"]
        let signed = SignCommandTests.sign(
            ["advanced-commerce", "--request", #"{"a":1,"b":{"a":1},"a":2}"#] + credentials)
        #expect(signed.status == 64)
        #expect(signed.stderr.contains(#"--request names member "a" twice (at byte 19)"#), "\(signed.stderr)")

        let request = Data(#"{"operation":"CREATE","operation":"REFUND"}"#.utf8).base64EncodedString()
        let claims =
            #"{"iss":"\#(SignCommandTests.issuer)","iat":\#(SignCommandTests.iat),"aud":"advanced-commerce-api","#
            + #""bid":"com.example.app","nonce":"\#(UUID().uuidString.lowercased())","request":"\#(request)"}"#
        let token = TestPKI.compactJWS(
            headerJSON: #"{"alg":"ES256","kid":"ABCDE12345","typ":"JWT"}"#, payloadJSON: claims, key: keys.key)
        let result = InProcess.run(["--key", keys.path, "--format", "jsonl", token])
        #expect(result.status == 7, "\(result.stdout)")
        #expect(
            result.stdout.contains(#"request names member \"operation\" twice (at byte 22) in its JSON"#),
            "\(result.stdout)")
    }
}
