import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// JWTs that are not App Store signed data are named as such: unsigned (`header.payload.`),
/// another issuer's algorithm, or ES256 with a key of its own (no `x5c`), with the statuses
/// the exit table gives them.
@Suite struct ForeignJWTTests {
    /// A compact JWS of these JSON texts with `signature` as its third segment, as given.
    static func token(header: String, payload: String = TestPayloads.transaction(), signature: String) -> String {
        "\(Base64URL.encode(Array(header.utf8))).\(Base64URL.encode(Array(payload.utf8))).\(signature)"
    }

    static let fakeSignature = Base64URL.encode(Array(repeating: 7, count: 32))

    // MARK: Empty signature

    @Test(arguments: [
        (#"{"alg":"none","typ":"JWT"}"#, #"alg "none" with an empty signature"#),
        (#"{"alg":"HS256"}"#, #"alg "HS256" with an empty signature"#),
        (#"{"typ":"JWT"}"#, "no alg and an empty signature"),
        (#"{"alg":256}"#, "alg a number with an empty signature"),
    ])
    func emptySignatureIsNotSigned(_ header: String, _ named: String) {
        let result = Fixtures.inspect(Self.token(header: header, signature: ""))
        #expect(result.status == .invalidSignature)
        #expect(result.reason == "signature: \(named): not signed; App Store data is signed ES256")
        #expect(result.jws != nil, "decoded, so the payload is shown")
    }

    @Test func emptySignatureUnderAnAppleHeaderIsNotSigned() {
        // ES256 and a genuine chain: everything else passes, the signature is simply absent.
        let signed = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())
        let unsigned = String(signed[...signed.lastIndex(of: ".")!])
        let result = Fixtures.inspect(unsigned)
        #expect(result.status == .invalidSignature)
        #expect(
            result.reason
                == #"signature: alg "ES256" with an empty signature: not signed; App Store data is signed ES256"#)
        #expect(result.checks.filter { !$0.passed }.map(\.name) == [.signature])
        // Deferring changes nothing: there is nothing to verify.
        let deferred = Verifier(options: Fixtures.options()).inspectDeferringSignature(unsigned, source: "test")
        #expect(deferred.signature == nil)
        #expect(deferred.inspection.status == .invalidSignature)
        // Without verification it is decoded, with a note.
        let decoded = Fixtures.inspect(unsigned) { $0.verifySignatures = false }
        #expect(decoded.status == .unverified)
        #expect(decoded.notes.contains("the signature segment is empty: the token is not signed"))
    }

    @Test func emptySignatureIsNotASegmentCountProblem() throws {
        #expect(try CompactJWS(Self.token(header: #"{"alg":"none"}"#, signature: "")).signature == [])
        #expect(throws: CompactJWS.FormatError.emptySegment("payload")) {
            try CompactJWS("\(Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)))..")
        }
    }

    // MARK: Another issuer's algorithm

    @Test(arguments: [
        ("HS256", "an HMAC-signed JWT (HS256)"),
        ("HS512", "an HMAC-signed JWT (HS512)"),
        ("RS256", "an RSA-signed JWT (RS256)"),
        ("PS384", "an RSA-signed JWT (PS384)"),
        ("ES384", "an ECDSA-signed JWT on another curve (ES384)"),
        ("EdDSA", "an EdDSA-signed JWT (EdDSA)"),
        ("none", #"an unsigned JWT (alg "none")"#),
    ])
    func anotherIssuersAlgorithmIsNamed(_ alg: String, _ named: String) {
        let result = Fixtures.inspect(
            Self.token(header: #"{"alg":"\#(alg)","typ":"JWT"}"#, signature: Self.fakeSignature))
        #expect(result.status == .invalidSignature)
        #expect(
            result.reason == "alg: \(named): not App Store signed data, which is ES256 with an x5c certificate chain")
        // Without x5c too, but the algorithm decides; the x5c check says only what it saw.
        #expect(result.check(.x5c)?.detail == "the header has no x5c certificate chain")
    }

    @Test func kidAndIssAreNamedExcerpted() {
        let longIssuer = "https://" + String(repeating: "a", count: 500) + ".example"
        let payload = #"{"iss":"\#(longIssuer)","sub":"user","exp":1}"#
        let result = Fixtures.inspect(
            Self.token(
                header: #"{"alg":"HS256","kid":"key-1"}"#, payload: payload,
                signature: Self.fakeSignature))
        let expected =
            #"alg: an HMAC-signed JWT (HS256, kid "key-1", iss "https://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…"): "#
            + "not App Store signed data, which is ES256 with an x5c certificate chain"
        #expect(result.reason == expected)
        #expect(!result.reason.contains(String(repeating: "a", count: 60)))
    }

    @Test func nearMissesAreNotAnotherIssuer() {
        // "es256" is nobody's algorithm: the header is wrong, and the message says what it must be.
        let long = String(repeating: "x", count: 500)
        for (alg, shown) in [("es256", "es256"), (long, String(repeating: "x", count: 59) + "…")] {
            let result = Fixtures.inspect(Self.token(header: #"{"alg":"\#(alg)"}"#, signature: Self.fakeSignature))
            #expect(result.status == .invalidSignature)
            #expect(result.reason == #"alg: alg is "\#(shown)"; App Store data is signed with ES256 only"#)
        }
    }

    // MARK: ES256 with a key of its own

    @Test func es256WithoutX5CIsSignedWithAKeyOfItsOwn() {
        let key = TestKey.p256()
        let result = Fixtures.inspect(
            TestPKI.compactJWS(headerJSON: #"{"alg":"ES256","typ":"JWT"}"#, payloadJSON: "{}", key: key))
        #expect(result.status == .invalidChain)
        #expect(
            result.reason
                == "x5c: ES256 without x5c: signed with a key of its own (a developer-signed token, or another "
                + "issuer's), not App Store signed data; App Store data carries its certificate chain in x5c")
    }

    /// With a `kid` it is a developer-signed token: no key is trusted until its key is given (issue 13).
    @Test func es256WithAKidAndNoX5CNeedsItsKey() {
        let key = TestKey.p256()
        let result = Fixtures.inspect(
            TestPKI.compactJWS(
                headerJSON: #"{"alg":"ES256","kid":"ABC123DEFG"}"#,
                payloadJSON: #"{"iss":"57246542-96fe-1a63-e053-0824d011072a"}"#, key: key)
        ) { $0.hints = MarkedHints() }
        #expect(result.status == .invalidChain)
        #expect(
            result.reason
                == #"key: no trusted key: ES256 without x5c (kid "ABC123DEFG", iss "57246542-96fe-1a63-e053-0824d011072a"): "#
                + "signed with a key of its own (a developer-signed token), not App Store signed data; to verify it, "
                + #"give the key "ABC123DEFG" with [needsKey(kid: "ABC123DEFG")] (or its public key, with [needsKeyID])"#
        )
    }
}
