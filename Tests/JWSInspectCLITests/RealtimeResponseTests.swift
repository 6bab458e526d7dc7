import Foundation
import Testing

/// A realtime response (what a developer's Get Retention Message endpoint answers, Retention
/// Messaging's `RealtimeResponseBody`), given as input (issue 52): recognised by its shape,
/// checked against Apple's model (one option, its members: `invalid-claims`, exit 7, naming the
/// member), its offer's signature verified (a V2 JWS as a nested token, a V1 signature with
/// `--key` and `--bundle-id`), never authentic itself, never granting access.
@Suite(.timeLimit(.minutes(10))) struct RealtimeResponseTests {
    typealias Keys = SignCommandTests.Keys

    static let message = "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890"
    static let issuer = "57246542-96fe-1a63-e053-0824d011072a"
    static let accountToken = "f6a78901-2345-6789-f6a7-890123456789"

    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// A V2 offer signature `sign` makes for com.example.
    static func signatureV2(_ keys: Keys) throws -> String {
        let result = InProcess.run([
            "sign", "promotional-offer", "--key", keys.path, "--issuer-id", issuer, "--bundle-id", "com.example",
            "--product-id", "productId", "--offer-id", "offerId",
        ])
        try #require(result.status == 0, "\(result.stderr)")
        return String(result.stdout.dropLast())
    }

    /// The realtime responses of each option, as Apple's model fixtures and tests shape them.
    static func bodies(_ keys: Keys) throws -> [String: String] {
        // In a realtime response, the application username is the customer's appAccountToken.
        let signed = InProcess.run(
            ["sign", "promotional-offer-v1", "--key", keys.path] + VerifyOfferV1Tests.fields(username: accountToken))
        try #require(signed.status == 0, "\(signed.stderr)")
        let v1: [String: Any] = [
            "encodedSignature": String(signed.stdout.dropLast()), "productId": "productId",
            "nonce": VerifyOfferV1Tests.nonce, "timestamp": VerifyOfferV1Tests.recent, "keyId": "ABCDE12345",
            "offerIdentifier": "offerId", "appAccountToken": accountToken,
        ]
        return [
            "message": try json(["message": ["messageIdentifier": message]]),
            "alternateProduct": try json([
                "alternateProduct": [
                    "messageIdentifier": message, "productId": "com.example.yearly", "billingPlanType": "MONTHLY",
                ]
            ]),
            "v2": try json([
                "promotionalOffer": [
                    "messageIdentifier": message, "promotionalOfferSignatureV2": try signatureV2(keys),
                ]
            ]),
            "v1": try json(["promotionalOffer": ["messageIdentifier": message, "promotionalOfferSignatureV1": v1]]),
        ]
    }

    static func inspect(_ body: String, _ arguments: [String]) throws -> (status: Int32, json: [String: Any]) {
        let result = InProcess.run(["--format", "jsonl"] + arguments, stdin: body)
        let line = try #require(result.stdout.split(separator: "\n").first, "\(result.stderr)")
        return (result.status, try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]))
    }

    @Test func eachOptionApplesModelAcceptsIsValidNeverAuthenticNeverAccess() throws {
        let keys = try Keys()
        let bodies = try Self.bodies(keys)
        for (name, body) in bodies {
            let (status, json) = try Self.inspect(body, ["--key", keys.path, "--bundle-id", "com.example"])
            #expect(status == 0, "\(name): \(json["reason"] ?? "")")
            #expect(json["type"] as? String == "realtimeResponse", "\(name)")
            #expect(json["envelope"] as? String == "realtimeResponse", "\(name)")
            #expect(json["authentic"] as? Bool == false, "\(name): nothing signs a realtime response")
            #expect((json["access"] as? [String: Any])?["grants"] as? Bool == false, "\(name)")
            #expect(json["unknownFields"] as? [String] == [], "\(name)")
            let checks = (json["checks"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
            #expect(checks.first == "realtime-response", "\(name)")
            #expect(checks.contains("offer-signature") == (name == "v1"), "\(name): \(checks)")
            let nested = json["nested"] as? [String: Any] ?? [:]
            #expect(Array(nested.keys) == (name == "v2" ? ["promotionalOffer.promotionalOfferSignatureV2"] : []))
        }
        // --require-active: a realtime response grants nothing.
        #expect(try Self.inspect(bodies["message"]!, ["--require-active"]).status == 6)
        // --exact takes one as one item.
        #expect(
            InProcess.run(["--exact", "-q", "--key", keys.path, "--bundle-id", "com.example"], stdin: bodies["v2"]!)
                .status == 0)
    }

    /// What is signed in it decides too: a V2 token without its key, under another app, or
    /// forged; a V1 signature without its key, without the bundle ID it signs, under another.
    @Test func itsOfferSignatureIsVerified() throws {
        let keys = try Keys()
        let bodies = try Self.bodies(keys)
        let key = ["--key", keys.path]
        #expect(try Self.inspect(bodies["v2"]!, []).status == 2, "a developer token without its key")
        #expect(try Self.inspect(bodies["v2"]!, key + ["--bundle-id", "com.other"]).status == 4)
        let token = try Self.signatureV2(keys)
        let tampered = String(token.dropLast(4)) + (token.hasSuffix("AAAA") ? "BBBB" : "AAAA")
        let tamperedBody = try Self.json([
            "promotionalOffer": ["messageIdentifier": Self.message, "promotionalOfferSignatureV2": tampered]
        ])
        #expect(try Self.inspect(tamperedBody, key).status == 1)

        let v1 = bodies["v1"]!
        let (noKey, noKeyJSON) = try Self.inspect(v1, ["--bundle-id", "com.example"])
        #expect(noKey == 2)
        #expect((noKeyJSON["reason"] as? String)?.contains("no --key for keyId ABCDE12345") == true)
        let (noBundle, noBundleJSON) = try Self.inspect(v1, key)
        #expect(noBundle == 1)
        #expect((noBundleJSON["reason"] as? String)?.contains("give --bundle-id") == true)
        #expect(try Self.inspect(v1, key + ["--bundle-id", "com.other"]).status == 1)
        let otherOffer = v1.replacingOccurrences(of: #""offerIdentifier":"offerId""#, with: #""offerIdentifier":"x""#)
        #expect(otherOffer != v1)
        #expect(try Self.inspect(otherOffer, key + ["--bundle-id", "com.example"]).status == 1)
    }

    /// Each way Apple's model refuses a response is `invalid-claims` (exit 7), the member named.
    @Test(arguments: [
        (#"{"message":{"messageIdentifier":"nope"}}"#, "message.messageIdentifier is not a UUID"),
        (#"{"message":{}}"#, "message.messageIdentifier is missing"),
        (
            #"{"message":{"messageIdentifier":"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890"},"alternateProduct":{}}"#,
            "it holds 2: message, alternateProduct"
        ),
        (
            #"{"alternateProduct":{"messageIdentifier":"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890"}}"#,
            "alternateProduct.productId is missing"
        ),
        (
            #"{"alternateProduct":{"messageIdentifier":"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890","productId":"p","billingPlanType":"WEEKLY"}}"#,
            "alternateProduct.billingPlanType is 'WEEKLY'"
        ),
        (
            #"{"promotionalOffer":{"messageIdentifier":"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890"}}"#,
            "promotionalOffer holds no offer signature"
        ),
        (
            #"{"promotionalOffer":{"messageIdentifier":"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890","promotionalOfferSignatureV2":"abc"}}"#,
            "promotionalOffer.promotionalOfferSignatureV2 is not a compact JWS"
        ),
        (
            #"{"promotionalOffer":{"messageIdentifier":"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890","promotionalOfferSignatureV1":{"productId":"p"}}}"#,
            "promotionalOffer.promotionalOfferSignatureV1.encodedSignature is missing"
        ),
        (
            #"{"advancedCommerceInfo":{"messageIdentifier":"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890","advancedCommerceData":"!!"}}"#,
            "advancedCommerceInfo.advancedCommerceData is not base64 of a JSON object"
        ),
        (#"{"message":"a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890"}"#, "message is a string, expected an object"),
    ])
    func whatApplesModelRefusesIsInvalidClaims(_ body: String, _ named: String) throws {
        let (status, json) = try Self.inspect(body, [])
        #expect(status == 7)
        #expect(json["status"] as? String == "invalid-claims")
        #expect((json["reason"] as? String)?.contains(named) == true, "\(json["reason"] ?? "")")
    }

    /// A member Apple's model does not name is flagged, not refused (Apple's models keep
    /// them); a JSON log line that only has a `message` among other members is not a response.
    @Test func anUnknownMemberIsFlaggedAndOtherDocumentsAreNotResponses() throws {
        let (status, json) = try Self.inspect(#"{"message":{"messageIdentifier":"\#(Self.message)","brandNew":1}}"#, [])
        #expect(status == 0)
        #expect(json["unknownFields"] as? [String] == ["message.brandNew"])
        let log = InProcess.run(["--format", "jsonl"], stdin: #"{"level":"info","message":"started"}"#)
        #expect(log.status == 5, "no JWS found, as for any document without one")
        #expect(!log.stdout.contains("realtimeResponse"))
    }
}
