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

    /// A notification without signedDate is checked now; once its leaf has expired, the hint
    /// says when its nested tokens were signed, and checking then verifies it.
    @Test func aNotificationWithoutSignedDateGetsTheTimeOfItsNestedTokens() throws {
        let nested = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())
        let payload =
            #"{"notificationType":"DID_RENEW","data":{"bundleId":"\#(TestPayloads.bundleId)","environment":"Sandbox","#
            + #""signedTransactionInfo":"\#(nested)"}}"#
        let token = Fixtures.pki.sign(payloadJSON: payload)
        let now = Fixtures.inspect(token) { $0.now = Self.afterTheLeaf }
        #expect(now.status == .invalidChain)
        let signed = ISO8601.string(Date(timeIntervalSince1970: Double(TestPayloads.signedDate) / 1000))
        // The core names the hint (a fixed time); the command line words it as --at.
        let hint = "its nested tokens were signed at \(signed); to check its chain then, give fixed time \(signed)"
        #expect(now.notes.contains(hint), "\(now.notes)")
        let then = Fixtures.inspect(token) {
            $0.now = Self.afterTheLeaf
            $0.timePolicy = .fixed(Date(timeIntervalSince1970: Double(TestPayloads.signedDate) / 1000))
        }
        #expect(then.status == .valid, "\(then.reason)")
        #expect(!then.notes.contains(hint))
        // With its signedDate, nothing to hint.
        #expect(!Fixtures.inspect(token).notes.contains { $0.hasPrefix("its nested tokens") })
    }

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

    /// A token and a receipt without a signing (creation) date: both are checked now, by the
    /// same rule, so neither reports a redundant "valid now"; with the date, both report it.
    @Test func aTokenAndAReceiptWithoutASigningTimeShareOneRule() throws {
        let receiptChain = TestReceiptChain()
        var options = VerificationOptions(
            trustStore: TrustStore(roots: [try Certificate(derBytes: receiptChain.root.der)]))
        options.now = Fixtures.now
        let receiptVerifier = Verifier(options: options)
        var undated = ReceiptBuilder()
        undated.omitsCreationDate = true
        let receipt = receiptVerifier.inspectReceipt(receiptChain.sign(undated.der()), source: "r")
        let nullDate = Fixtures.inspect(Fixtures.pki.sign(payloadJSON: #"{"transactionId":"1","signedDate":null}"#))
        let noDate = Fixtures.inspect(Fixtures.pki.sign(payloadJSON: #"{"transactionId":"1"}"#))
        for result in [receipt, nullDate, noDate] {
            #expect(result.status == .valid, "\(result.reason)")
            let time = try #require(result.checkTime)
            #expect(time.date == Fixtures.now)
            guard case .nowInstead(_, .absent) = time.basis else {
                Issue.record("checked at \(time.basis), not now for want of a signing time")
                continue
            }
            #expect(result.validNow == nil, "checked now: validity now is the verdict itself")
        }
        #expect(receipt.checkTime?.basis.description == "now (no receipt_creation_date in the receipt)")
        #expect(receipt.notes.contains("receipt_creation_date is absent: certificates checked now"))
        #expect(nullDate.checkTime?.basis.description == "now (no signedDate in the payload)")
        #expect(nullDate.notes.contains("signedDate is null, not milliseconds; certificates checked now"))
        #expect(noDate.checkTime?.basis.description == "now (no signedDate in the payload)")

        let datedReceipt = receiptVerifier.inspectReceipt(receiptChain.sign(ReceiptBuilder().der()), source: "r")
        let datedToken = Fixtures.inspect(Fixtures.pki.sign(payloadJSON: TestPayloads.transaction()))
        #expect(datedReceipt.checkTime?.basis == .signingTime(field: "receipt_creation_date"))
        #expect(datedToken.checkTime?.basis == .signingTime(field: "signedDate"))
        #expect(datedReceipt.validNow?.valid == true)
        #expect(datedToken.validNow?.valid == true)
    }
}
