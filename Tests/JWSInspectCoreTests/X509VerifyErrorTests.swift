import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// OpenSSL's `X509_V_ERR_*` codes become `X509VerifyError` values, and back, with OpenSSL's texts.
@Suite struct X509VerifyErrorTests {
    static let pki = Fixtures.pki

    /// The codes the verifier explains differently, by their numbers in OpenSSL 3's `x509_vfy.h`.
    static let named: [(Int32, X509VerifyError, String)] = [
        (2, .unableToGetIssuerCert, "unable to get issuer certificate"),
        (9, .certNotYetValid, "certificate is not yet valid"),
        (10, .certHasExpired, "certificate has expired"),
        (20, .unableToGetIssuerCertLocally, "unable to get local issuer certificate"),
        (21, .unableToVerifyLeafSignature, "unable to verify the first certificate"),
        (66, .leafKeyTooSmall, "EE certificate key too weak"),
        (67, .caKeyTooSmall, "CA certificate key too weak"),
        (68, .signatureDigestTooWeak, "CA signature digest algorithm too weak"),
    ]

    @Test func namedCodesMapBothWays() {
        for (code, error, text) in Self.named {
            #expect(X509VerifyError(code: code) == error, "\(code)")
            #expect(error.code == code)
            #expect(error.text == text)
            #expect(error.description == "\(text) (X509_V_ERR \(code))")
        }
    }

    @Test func otherCodesKeepTheirNumberAndOpenSSLText() {
        #expect(X509VerifyError(code: 7) == .other(7))
        #expect(X509VerifyError(code: 7).description == "certificate signature failure (X509_V_ERR 7)")
        #expect(X509VerifyError(code: 0) == .other(0))
        #expect(X509VerifyError(code: 0).text == "ok")
        #expect(X509VerifyError(code: 100_000).text == "unknown certificate verification error")
    }

    @Test func verificationThatNeverRanShowsItsReasonWithCodeMinusOne() {
        let error = X509VerifyError.notStarted("the check time is not a valid date (years 0001 to 9999)")
        #expect(error.code == -1)
        #expect(error.description == "the check time is not a valid date (years 0001 to 9999) (X509_V_ERR -1)")
    }

    @Test func pathValidationReportsTypedErrors() throws {
        let store = TrustStore(roots: [Fixtures.root()])
        let leaf = try Certificate(derBytes: Self.pki.leaf.der)
        let intermediate = try Certificate(derBytes: Self.pki.intermediate.der)
        func validate(at date: Date, trusting store: TrustStore) -> TrustStore.PathValidation {
            store.validate(leaf: leaf, intermediates: [intermediate], at: date, checks: .rfc5280, floor: .level2)
        }

        let valid = validate(at: Fixtures.now, trusting: store)
        #expect(valid.isValid && valid.error == nil && valid.errorText == "ok" && valid.path.count == 3)
        let early = validate(at: AppleShapedChain.caNotBefore, trusting: store)
        #expect(early.error == .certNotYetValid && early.errorDepth == 0)
        let late = validate(at: AppleShapedChain.leafNotAfter + 86_400, trusting: store)
        #expect(late.error == .certHasExpired && late.errorDepth == 0)
        #expect(!late.isValid && late.errorText == "certificate has expired" && late.path.isEmpty)
        let foreign = validate(at: Fixtures.now, trusting: TrustStore(roots: [Fixtures.root(Fixtures.attacker)]))
        #expect(foreign.error == .unableToGetIssuerCertLocally)
        let never = validate(at: Date(timeIntervalSince1970: 1e19), trusting: store)
        #expect(never.error == .notStarted("the check time is not a valid date (years 0001 to 9999)"))
    }
}
