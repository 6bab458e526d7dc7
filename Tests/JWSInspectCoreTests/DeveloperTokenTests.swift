import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// Developer-signed tokens (issue 13): a `kid` and no `x5c`, verified with the `--key` of that
/// ID (the developer-key trust model), their kind known by `aud`, their claims checked as Apple
/// states them (exit 7).
@Suite struct DeveloperTokenTests {
    static let key = TestKey.p256()
    static let other = TestKey.p256()
    static let keyID = "2X9R4HXF34"
    static let issuer = "57246542-96fe-1a63-e053-0824d011072a"
    static var iat: Int { Int(Fixtures.now.timeIntervalSince1970) - 60 }

    static func developerKey(_ key: TestKey = key, id: String = keyID) -> DeveloperKey {
        DeveloperKey(keyID: id, publicKey: PublicKey(subjectPublicKeyInfo: key.publicKeyDER)!)
    }

    static func token(_ claims: String, key: TestKey = key, kid: String = keyID) -> String {
        TestPKI.compactJWS(headerJSON: #"{"alg":"ES256","kid":"\#(kid)","typ":"JWT"}"#, payloadJSON: claims, key: key)
    }

    static func apiToken(iat: Int? = DeveloperTokenTests.iat, lifetime: Int = 300, bid: String = "com.example.app")
        -> String
    {
        let issued = iat.map { #""iat":\#($0),"# } ?? ""
        let expires = (iat ?? Int(Fixtures.now.timeIntervalSince1970)) + lifetime
        return #"{"iss":"\#(issuer)",\#(issued)"exp":\#(expires),"aud":"appstoreconnect-v1","bid":"\#(bid)"}"#
    }

    static func offer(extra: String = "", nonce: String = "\"0b6d8c4e-2a1f-4e3b-9d5c-7a8b9c0d1e2f\"") -> String {
        #"{"iss":"\#(issuer)","iat":\#(iat),"aud":"promotional-offer","bid":"com.example.app","nonce":\#(nonce),"#
            + #""productId":"monthly","offerIdentifier":"WINBACK"\#(extra)}"#
    }

    static func inspect(
        _ token: String, keys: [DeveloperKey] = [developerKey()],
        _ configure: (inout VerificationOptions) -> Void = { _ in }
    )
        -> Inspection
    {
        Fixtures.inspect(token) {
            $0.developerKeys = keys
            configure(&$0)
        }
    }

    /// A NumericDate given as a string, or in the App Store's milliseconds, is said to be one.
    @Test func theTwoUsualNumericDateMistakesAreNamed() throws {
        let string = Self.inspect(
            Self.token(Self.apiToken().replacingOccurrences(of: #""iat":\#(Self.iat)"#, with: #""iat":"\#(Self.iat)""#))
        )
        let iat = try #require(string.checks.first { $0.name == .iat })
        #expect(
            !iat.passed && iat.detail.hasSuffix(": a NumericDate is a JSON number, not the string of one"),
            "\(iat.detail)")
        let milliseconds = Self.iat * 1000
        let ms = Self.inspect(
            Self.token(
                Self.apiToken().replacingOccurrences(of: #""iat":\#(Self.iat)"#, with: #""iat":\#(milliseconds)"#)))
        let msCheck = try #require(ms.checks.first { $0.name == .iat })
        #expect(msCheck.detail.hasSuffix(": it looks like milliseconds; seconds are \(Self.iat)"), "\(msCheck.detail)")
    }

    @Test func anAPITokenSignedWithTheKeyVerifies() {
        let result = Self.inspect(Self.token(Self.apiToken()))
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.kind == .apiToken)
        #expect(result.checks.map(\.name) == [.alg, .key, .signature, .aud, .iss, .bid, .iat, .exp])
        #expect(result.reason.hasPrefix("developer-signed token: signature verified with the developer key 2X9R4HXF34"))
    }

    @Test func everyDeveloperKindIsKnownByItsAudience() {
        // A request Apple's model accepts (AdvancedCommerceRequestModel checks it).
        let request = Data(
            (#"{"operation":"CREATE_ONE_TIME_CHARGE","version":"1","requestInfo":{"requestReferenceId":"#
                + #""d1c3c5a8-5a1b-4e62-8f0f-2b1c4d5e6f70"},"currency":"USD","item":{"SKU":"coins.100","#
                + #""description":"100 coins","displayName":"Coins","price":990},"taxCode":"C003-00-2"}"#).utf8
        ).base64EncodedString()
        let cases: [(String, PayloadKind)] = [
            (Self.offer(), .promotionalOffer),
            (
                Self.offer().replacingOccurrences(of: "promotional-offer", with: "introductory-offer-eligibility")
                    .replacingOccurrences(
                        of: #","offerIdentifier":"WINBACK""#,
                        with: #","allowIntroductoryOffer":false,"transactionId":"2000000000000001""#),
                .introductoryOfferEligibility
            ),
            (
                #"{"iss":"\#(Self.issuer)","iat":\#(Self.iat),"aud":"advanced-commerce-api","bid":"b","#
                    + #""nonce":"0B6D8C4E-2A1F-4E3B-9D5C-7A8B9C0D1E2F","request":"\#(request)"}"#,
                .advancedCommerceRequest
            ),
        ]
        for (claims, kind) in cases {
            let result = Self.inspect(Self.token(claims))
            #expect(result.status == .valid, "\(kind): \(result.reason)")
            #expect(result.kind == kind)
        }
    }

    @Test func withoutAnyKeyNoKeyIsTrusted() {
        let result = Self.inspect(Self.token(Self.apiToken()), keys: []) { $0.hints = MarkedHints() }
        #expect(result.status == .invalidChain)
        #expect(result.check(.key)?.failed == true)
        #expect(result.reason.contains(#"with [needsKey(kid: "2X9R4HXF34")] (or its public key, with [needsKeyID])"#))
        // Without a wording of its own, a caller reads plain words: the core names no option.
        let plain = Self.inspect(Self.token(Self.apiToken()), keys: [])
        #expect(
            plain.reason.contains("with its private key AuthKey_2X9R4HXF34.p8 (or its public key, with its key ID)"))
        #expect(!plain.reason.contains("--"))
    }

    @Test func withKeysOfOtherIDsTheSignatureFails() {
        let result = Self.inspect(Self.token(Self.apiToken()), keys: [Self.developerKey(id: "AAAAAAAAAA")])
        #expect(result.status == .invalidSignature)
        #expect(result.reason.contains(#"kid "2X9R4HXF34""#) && result.reason.contains(#""AAAAAAAAAA""#))
    }

    @Test func anotherKeyWithTheSameIDFailsTheSignature() {
        let result = Self.inspect(Self.token(Self.apiToken(), key: Self.other))
        #expect(result.status == .invalidSignature)
        #expect(result.check(.signature)?.failed == true)
    }

    @Test func tamperedClaimsFailTheSignature() {
        let token = Self.token(Self.apiToken())
        let parts = token.split(separator: ".").map(String.init)
        let forged = Data(Self.apiToken(bid: "com.example.evil").utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        let result = Self.inspect([parts[0], forged, parts[2]].joined(separator: "."))
        #expect(result.status == .invalidSignature)
    }

    @Test(arguments: [
        ("expired", DeveloperTokenTests.apiToken(iat: DeveloperTokenTests.iat - 3600, lifetime: 600), "exp", "expired"),
        ("lifetime", DeveloperTokenTests.apiToken(lifetime: 3660), "exp", "more than 60 minutes"),
        ("lifetime without iat", DeveloperTokenTests.apiToken(iat: nil, lifetime: 3700), "exp", "more than 60 minutes"),
        ("future iat", DeveloperTokenTests.apiToken(iat: DeveloperTokenTests.iat + 600), "iat", "in the future"),
        (
            "no aud",
            DeveloperTokenTests.apiToken().replacingOccurrences(of: #","aud":"appstoreconnect-v1""#, with: ""), "aud",
            "no aud"
        ),
        (
            "other aud",
            DeveloperTokenTests.apiToken().replacingOccurrences(of: "appstoreconnect-v1", with: "appstoreconnect-v2"),
            "aud", "does not accept"
        ),
        (
            "no iss",
            DeveloperTokenTests.apiToken().replacingOccurrences(
                of: #""iss":"\#(DeveloperTokenTests.issuer)","#, with: ""), "iss", "no iss"
        ),
        (
            "no bid",
            DeveloperTokenTests.apiToken().replacingOccurrences(of: #","bid":"com.example.app""#, with: ""), "bid",
            "no bid; Apple requires the app's bundle ID (case-sensitive) in an App Store Server API token and answers 401"
        ),
        ("empty bid", DeveloperTokenTests.apiToken(bid: ""), "bid", "bid is empty"),
        (
            "bid a number",
            DeveloperTokenTests.apiToken().replacingOccurrences(of: #""bid":"com.example.app""#, with: #""bid":7"#),
            "bid", "bid is a number, expected the bundle ID string"
        ),
        (
            "no bid in an offer",
            DeveloperTokenTests.offer().replacingOccurrences(of: #","bid":"com.example.app""#, with: ""), "bid",
            "no bid; Apple requires the app's bundle ID (case-sensitive) in a promotional offer signature"
        ),
        (
            "exp in an offer", DeveloperTokenTests.offer(extra: #","exp":\#(DeveloperTokenTests.iat + 300)"#), "exp",
            "makes the request fail"
        ),
        ("bad nonce", DeveloperTokenTests.offer(nonce: #""not-a-uuid""#), "nonce", "expected a UUID"),
        ("no nonce", DeveloperTokenTests.offer(nonce: "null"), "nonce", "expected a UUID"),
        (
            "no offer",
            DeveloperTokenTests.offer().replacingOccurrences(of: #","offerIdentifier":"WINBACK""#, with: ""), "claims",
            "no offerIdentifier"
        ),
    ])
    func invalidClaimsExit7(_ label: String, _ claims: String, _ check: String, _ words: String) {
        let result = Self.inspect(Self.token(claims))
        #expect(result.status == .invalidClaims, "\(label): \(result.reason)")
        #expect(result.reason.hasPrefix("\(check): "), "\(label): \(result.reason)")
        #expect(result.reason.contains(words), "\(label): \(result.reason)")
    }

    @Test func checksAreMadeAtTheGivenTime() {
        let token = Self.token(Self.apiToken())
        let later = Fixtures.now.addingTimeInterval(3600)
        #expect(Self.inspect(token) { $0.timePolicy = .fixed(later) }.status == .invalidClaims)
        #expect(Self.inspect(token) { $0.timePolicy = .fixed(Fixtures.now) }.status == .valid)
    }

    @Test func theBundleIDIsTheBidClaim() {
        let token = Self.token(Self.apiToken())
        let wrong = Self.inspect(token) { $0.expectedBundleId = "com.example.other" }
        #expect(wrong.status == .wrongApp)
        #expect(wrong.check(.bundleId)?.detail == #"bid is "com.example.app", expected "com.example.other""#)
        #expect(Self.inspect(token) { $0.expectedBundleId = "com.example.app" }.status == .valid)
    }

    @Test func appStoreDataVerifiesAsBeforeWithKeysGiven() {
        let token = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())
        let plain = Fixtures.inspect(token)
        let withKeys = Self.inspect(token)
        #expect(withKeys.status == .valid && withKeys.checks == plain.checks && withKeys.reason == plain.reason)
    }

    @Test func claimsAreShownAsDates() {
        let result = Self.inspect(Self.token(Self.apiToken()))
        let display = PayloadDisplay(kind: result.kind, payload: result.jws!.payload.object, now: Fixtures.now)
        let iat = display.fields.first { $0.path == ["iat"] }
        #expect(iat?.rendered == ISO8601.string(Date(timeIntervalSince1970: Double(Self.iat))))
        #expect(iat?.relative != nil)
    }
}
