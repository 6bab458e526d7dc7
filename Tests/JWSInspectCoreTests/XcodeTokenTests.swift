import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// StoreKit Testing in Xcode tokens: one self-signed certificate, kid Apple_Xcode_Key,
/// environment Xcode, fractional dates. Not signed by the App Store.
@Suite struct XcodeTokenTests {
    /// Xcode's certificate is valid for one year.
    static let certificate = TestPKI.issue(
        CertificateSpec(
            commonName: "StoreKit Testing in Xcode", notBefore: Date(timeIntervalSince1970: 1_697_000_000),
            notAfter: Date(timeIntervalSince1970: 1_728_536_000), isCA: false, keyIdentifiers: false),
        issuer: nil)
    static let payload =
        #"{"transactionId":"0","originalTransactionId":"0","bundleId":"com.example.app","productId":"pro","purchaseDate":1697679936049.7297,"originalPurchaseDate":1697679936049.7297,"expiresDate":-62135769600000,"type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED","signedDate":1697679936054.2769,"environment":"Xcode"}"#

    static func token(payload: String = payload) -> String {
        let header = #"{"alg":"ES256","kid":"Apple_Xcode_Key","typ":"JWT","x5c":["\#(certificate.base64)"]}"#
        return TestPKI.compactJWS(headerJSON: header, payloadJSON: payload, key: certificate.key)
    }

    static func trustingXcode(_ configure: (inout VerificationOptions) -> Void = { _ in }) -> VerificationOptions {
        var options = VerificationOptions(trustStore: TrustStore(roots: [try! Certificate(derBytes: certificate.der)]))
        options.now = Fixtures.now
        configure(&options)
        return options
    }

    @Test func withoutItsCertificateItFailsTheChainAndSaysHowToTrustIt() {
        var options = VerificationOptions()
        options.now = Fixtures.now
        options.hints = MarkedHints()
        let result = Verifier(options: options).inspect(Self.token(), source: "x")
        #expect(result.isXcode)
        #expect(result.status == .invalidChain)
        #expect(result.reason.contains("NOT signed by the App Store"))
        #expect(result.reason.contains(#"and pass [needsRoot(file: "StoreKitTestCertificate.cer")]"#))
    }

    @Test func withItsCertificateAsRootItVerifies() {
        let result = Verifier(
            options: Self.trustingXcode {
                $0.expectedEnvironment = .xcode
                $0.hints = MarkedHints()
            }
        ).inspect(Self.token(), source: "x")
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.isXcode)
        #expect(result.reason.hasPrefix("StoreKit Testing in Xcode token, NOT signed by the App Store"))
        #expect(result.checks.map(\.name) == [.alg, .x5c, .chain, .signature, .environment])
        #expect(result.notes.contains { $0.contains("marker OIDs are not required") })
        #expect(result.check(.x5c)?.detail == "1 certificate, identical to a trusted root ([givenRoot])")
        #expect(result.notes.contains { $0.contains("a trusted root given with [givenRoot]") })
        #expect(result.checkTime?.date == Date(timeIntervalSince1970: 1_697_679_936.0542769))
    }

    @Test func itsSignatureIsStillChecked() {
        let tampered = NestedTokenTests.tamper(
            Self.token(), payload: Self.payload.replacingOccurrences(of: "pro", with: "max"))
        #expect(Verifier(options: Self.trustingXcode()).inspect(tampered, source: "x").status == .invalidSignature)
    }

    @Test func itsValidityIsCheckedAtSignedDate() {
        let late = Self.payload.replacingOccurrences(of: "1697679936054.2769", with: "1740000000000")
        let result = Verifier(options: Self.trustingXcode()).inspect(Self.token(payload: late), source: "x")
        #expect(result.status == .invalidChain)
        #expect(result.check(.chain)?.detail.contains("certificate has expired") == true)
    }

    @Test func aSingleCertificateThatIsNotATrustedRootNeverVerifies() {
        // Not Xcode-shaped, not trusted: an ordinary short chain.
        let other = TestPKI.issue(
            CertificateSpec(
                commonName: "Someone", notBefore: AppleShapedChain.leafNotBefore,
                notAfter: AppleShapedChain.leafNotAfter, isCA: false), issuer: nil)
        let header = #"{"alg":"ES256","x5c":["\#(other.base64)"]}"#
        let token = TestPKI.compactJWS(headerJSON: header, payloadJSON: TestPayloads.transaction(), key: other.key)
        let result = Fixtures.inspect(token)
        #expect(!result.isXcode)
        #expect(result.status == .invalidChain)
        #expect(result.check(.x5c)?.detail.contains("x5c has 1 certificate") == true)
        // Trusting the Xcode certificate does not make other single certificates pass.
        #expect(Verifier(options: Self.trustingXcode()).inspect(token, source: "x").status == .invalidChain)
    }
}
