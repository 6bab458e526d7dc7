import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

/// The header and claims of every developer token kind, exactly, and the legacy (V1) offer
/// signature's string and signature.
@Suite struct DeveloperTokenBuilderTests {
    static let issuer = "57246542-96fe-1a63-e053-0824d011072a"
    static let nonce = UUID(uuidString: "20FBA8A0-2B80-4A7D-A17F-85C1854727F8")!
    static let iat: Int64 = 1_700_000_000

    static func claimsJSON(_ feature: DeveloperToken.Feature) -> String {
        let claims = DeveloperToken.claims(
            feature, issuerID: issuer, bundleID: "com.example.app", issuedAt: iat, nonce: nonce)
        return String(decoding: DeveloperToken.json(claims), as: UTF8.self)
    }

    @Test func claimsOfEveryKind() {
        let base = #"{"iss":"57246542-96fe-1a63-e053-0824d011072a","iat":1700000000,"#
        let nonce = #""nonce":"20fba8a0-2b80-4a7d-a17f-85c1854727f8""#
        #expect(
            Self.claimsJSON(.apiToken(lifetime: 300))
                == base + #""exp":1700000300,"aud":"appstoreconnect-v1","bid":"com.example.app"}"#)
        #expect(
            Self.claimsJSON(.promotionalOffer(productID: "pro", offerID: "WINBACK", transactionID: nil))
                == base + #""aud":"promotional-offer","bid":"com.example.app",\#(nonce),"productId":"pro","#
                + #""offerIdentifier":"WINBACK"}"#)
        #expect(
            Self.claimsJSON(.promotionalOffer(productID: "pro", offerID: "WINBACK", transactionID: "2000"))
                == base + #""aud":"promotional-offer","bid":"com.example.app",\#(nonce),"productId":"pro","#
                + #""offerIdentifier":"WINBACK","transactionId":"2000"}"#)
        #expect(
            Self.claimsJSON(
                .introductoryOfferEligibility(productID: "pro", allowIntroductoryOffer: false, transactionID: "1"))
                == base + #""aud":"introductory-offer-eligibility","bid":"com.example.app",\#(nonce),"#
                + #""productId":"pro","allowIntroductoryOffer":false,"transactionId":"1"}"#)
        #expect(
            Self.claimsJSON(.advancedCommerce(requestJSON: Array(#"{"operation":"CREATE_SUBSCRIPTION","x":"é"}"#.utf8)))
                == base + #""aud":"advanced-commerce-api","bid":"com.example.app",\#(nonce),"#
                + #""request":"eyJvcGVyYXRpb24iOiJDUkVBVEVfU1VCU0NSSVBUSU9OIiwieCI6IsOpIn0="}"#)
    }

    @Test func headerAndSignedToken() throws {
        let key = try #require(
            try KeyFile(bytes: Array(TestKey.p256().privateKeyPEM.utf8), path: "AuthKey_A.p8").privateKey)
        let claims = DeveloperToken.claims(
            .apiToken(lifetime: 60), issuerID: Self.issuer, bundleID: "b", issuedAt: Self.iat, nonce: Self.nonce)
        let signed = try DeveloperToken.sign(claims: claims, keyID: "2X9R4HXF34", key: key)
        #expect(
            String(decoding: signed.headerJSON, as: UTF8.self) == #"{"alg":"ES256","kid":"2X9R4HXF34","typ":"JWT"}"#)
        let parts = signed.token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3)
        #expect(try Base64URL.decode(Array(parts[0].utf8)) == signed.headerJSON)
        #expect(try Base64URL.decode(Array(parts[1].utf8)) == signed.claimsJSON)
        #expect(!signed.token.contains("=") && !signed.token.contains("+") && !signed.token.contains("/"))
        let signature = try Base64URL.decode(Array(parts[2].utf8))
        let input = Array((parts[0] + "." + parts[1]).utf8)
        #expect(key.publicKey.verifyES256(signature: signature, message: input) == nil)
    }

    @Test func jsonEscapesStrings() {
        let json = DeveloperToken.json([("a", .string("q\"b\\n\n\u{1}é")), ("n", .integer(-1)), ("t", .bool(true))])
        #expect(String(decoding: json, as: UTF8.self) == #"{"a":"q\"b\\n\n\u0001é","n":-1,"t":true}"#)
    }

    @Test func advancedCommerceRequestMustBeAnObject() {
        #expect(DeveloperToken.requestProblem(Array(#"{"a":[1,2]}"#.utf8)) == nil)
        #expect(DeveloperToken.requestProblem(Array("[1]".utf8)) == "is JSON but not an object")
        #expect(DeveloperToken.requestProblem(Array(#"{"a":1,}"#.utf8))?.hasPrefix("is not JSON") == true)
        #expect(DeveloperToken.requestProblem(Array("".utf8)) != nil)
    }

    /// Apple's test vector inputs (PY tests/test_promotional_offer_signature_creator.py).
    @Test func offerV1StringAndSignature() throws {
        let key = try #require(try KeyFile(bytes: Array(TestKey.p256().privateKeyPEM.utf8), path: "k").privateKey)
        let offer = PromotionalOfferV1(
            bundleID: "com.example", keyID: "keyId", productID: "productId", offerID: "offerId",
            applicationUsername: "AppAccountToken", nonce: Self.nonce, timestamp: 1_698_148_900_000)
        let separator = "\u{2063}"
        #expect(
            offer.signedString
                == [
                    "com.example", "keyId", "productId", "offerId", "appaccounttoken",
                    "20fba8a0-2b80-4a7d-a17f-85c1854727f8", "1698148900000",
                ].joined(separator: separator))
        #expect(Array(separator.utf8) == [0xe2, 0x81, 0xa3])
        let signature = try offer.signature(with: key)
        let der = try #require(Data(base64Encoded: signature))
        #expect(der.first == 0x30)
        #expect(offer.verifies(signature: signature, with: key.publicKey))
        #expect(key.publicKey.verifyDER(signature: Array(der), message: Array(offer.signedString.utf8)))
        var other = offer
        other.timestamp += 1
        #expect(!other.verifies(signature: signature, with: key.publicKey))
        var empty = offer
        empty.applicationUsername = ""
        #expect(empty.signedString.contains("offerId\(separator)\(separator)20fba8a0"))
    }

    /// A signature's text: standard base64 (padding optional, whitespace around it dropped) of
    /// exactly one DER signature; base64url, other characters and raw r‖s are named.
    @Test func offerV1SignatureText() throws {
        let key = try #require(try KeyFile(bytes: Array(TestKey.p256().privateKeyPEM.utf8), path: "k").privateKey)
        let der = try key.signDER(Array("message".utf8))
        let text = Data(der).base64EncodedString()
        #expect(try PromotionalOfferV1.derSignature(base64: text).get() == der)
        #expect(try PromotionalOfferV1.derSignature(base64: " \(text)\n").get() == der)
        let unpadded = String(text.prefix { $0 != "=" })
        #expect(try PromotionalOfferV1.derSignature(base64: unpadded).get() == der)
        func problem(_ text: String) -> String {
            guard case .failure(let error) = PromotionalOfferV1.derSignature(base64: text) else { return "ok" }
            return error.description
        }
        #expect(problem("").hasPrefix("is not standard base64: it is empty"))
        #expect(problem("ab-_").contains("base64url"))
        #expect(problem("ab cd").hasPrefix("is not standard base64"))
        #expect(problem("abcde").hasPrefix("is not standard base64"))
        #expect(problem("ab=c").hasPrefix("is not standard base64"))
        #expect(problem(Data(der + [0]).base64EncodedString()).hasPrefix("is not a DER signature"))
        #expect(problem(Data(repeating: 1, count: 64).base64EncodedString()).contains("r‖s"))
    }
}
