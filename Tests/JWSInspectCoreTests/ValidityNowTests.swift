import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// Certificates checked at another moment (the signing time, `--at`) are checked now too, for
/// a three-certificate chain and for one pinned certificate alike, in the same words.
@Suite struct ValidityNowTests {
    /// 2026-06-01T00:00:00Z, after the test leaf's validity (2024-01-01 to 2026-01-01).
    static let afterTheLeaf = Date(timeIntervalSince1970: 1_780_272_000)

    @Test func aChainValidNowTooSaysSo() throws {
        let result = Fixtures.inspect(Fixtures.pki.sign(payloadJSON: TestPayloads.transaction()))
        #expect(result.status == .valid, "\(result.reason)")
        let now = try #require(result.validNow)
        #expect(now.valid)
        #expect(now.date == Fixtures.now)
        #expect(now.detail == "the chain is also valid now (2025-06-01T00:00:00.000Z)")
        #expect(result.chain.allSatisfy { now.mark($0) == nil })
    }

    @Test func aChainNotValidNowSaysWhyAndMarksTheCertificate() throws {
        let token = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())
        let result = Fixtures.inspect(token) { $0.now = Self.afterTheLeaf }
        #expect(result.status == .valid, "the verdict follows the signing time: \(result.reason)")
        let now = try #require(result.validNow)
        #expect(!now.valid)
        #expect(now.detail.hasPrefix("certificate has expired (X509_V_ERR 10) at the leaf "))
        #expect(now.detail.hasSuffix(", checked now (2026-06-01T00:00:00.000Z)"))
        #expect(result.chain.map { now.mark($0) } == ["not valid now", nil, nil])
    }

    @Test func certificatesCheckedNowAreNotCheckedTwice() {
        let token = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())
        #expect(Fixtures.inspect(token) { $0.timePolicy = .now }.validNow == nil)
    }

    @Test func aPinnedCertificateValidNowTooSaysSo() throws {
        // Inside the Xcode certificate's year (2023-10-11 to 2024-10-10), after its signedDate.
        let options = XcodeTokenTests.trustingXcode { $0.now = Date(timeIntervalSince1970: 1_700_000_000) }
        let result = Verifier(options: options).inspect(XcodeTokenTests.token(), source: "x")
        #expect(result.status == .valid, "\(result.reason)")
        let now = try #require(result.validNow)
        #expect(now.valid)
        #expect(now.detail == "the certificate is also valid now (2023-11-14T22:13:20.000Z)")
    }

    @Test func aPinnedCertificateNotValidNowSaysWhy() throws {
        let result = Verifier(options: XcodeTokenTests.trustingXcode()).inspect(XcodeTokenTests.token(), source: "x")
        #expect(result.status == .valid, "\(result.reason)")
        let now = try #require(result.validNow)
        #expect(!now.valid)
        #expect(now.detail.hasPrefix("certificate has expired (X509_V_ERR 10) at the leaf "))
        #expect(now.detail.hasSuffix(", checked now (2025-06-01T00:00:00.000Z)"))
        #expect(result.chain.map { now.mark($0) } == ["not valid now"])
    }
}
