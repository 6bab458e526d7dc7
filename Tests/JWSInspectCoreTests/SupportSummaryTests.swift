import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// The summary line for support staff never contradicts the verdict: a notification says what
/// `data.status` meant when it was sent, and whether its transaction grants access now in the
/// words the transaction's own summary and `--require-active` use.
@Suite struct SupportSummaryTests {
    static let subscribed = "notification-subscribed-sandbox-2025.jws"
    /// 2025-12-01, two months after the SUBSCRIBED sample's transaction expired (2025-10-02T07:09:07Z).
    static let now = RealSampleTests.now
    static let expiredWords = "grants no access: expired 2025-10-02T07:09:07.000Z"

    func inspect(_ sample: String, _ configure: (inout VerificationOptions) -> Void = { _ in }) throws -> Inspection {
        var options = VerificationOptions()
        options.now = Self.now
        configure(&options)
        return Verifier(options: options).inspect(try Fixtures.sample(sample), source: sample)
    }

    func nested(_ inspection: Inspection, _ path: String) throws -> Inspection {
        try #require(inspection.nested.first { $0.path == path }).inspection
    }

    @Test func subscribedNotificationSaysStatusWhenSentAndAccessNow() throws {
        let result = try inspect(Self.subscribed) { $0.requireActive = true }
        #expect(result.status == .inactive)
        let summary = try #require(result.summary)
        #expect(
            summary == "SUBSCRIBED/RESUBSCRIBE (customer subscribed) for com.loki-project.loki-messenger in Sandbox, "
                + "sent 2025-10-02; status when sent: active; its transaction \(Self.expiredWords).")
        #expect(!summary.contains("subscription active"))
        // The same words in the `active` check, the verdict's reason and the transaction's own summary.
        #expect(result.check(.active)?.detail == "data.signedTransactionInfo \(Self.expiredWords) (access checked now)")
        #expect(result.reason.hasPrefix("active: data.signedTransactionInfo \(Self.expiredWords)"))
        let transaction = try nested(result, "data.signedTransactionInfo")
        #expect(
            transaction.summary == "Auto-renewable subscription com.getsession.org.pro_sub, purchased 2025-10-02; "
                + "\(Self.expiredWords).")
    }

    @Test func withoutRequireActiveTheSummaryIsTheSame() throws {
        let result = try inspect(Self.subscribed)
        #expect(result.status == .valid)
        #expect(result.summary?.hasSuffix("; status when sent: active; its transaction \(Self.expiredWords).") == true)
    }

    @Test func beforeExpiryTheSameNotificationGrantsAccess() throws {
        let at = try #require(ISO8601DateFormatter().date(from: "2025-10-02T07:07:00Z"))
        let result = try inspect(Self.subscribed) {
            $0.requireActive = true
            $0.accessAt = at
        }
        #expect(result.status == .valid, "\(result.reason)")
        let granted = "grants access until 2025-10-02T07:09:07.000Z"
        #expect(result.summary?.hasSuffix("; status when sent: active; its transaction \(granted).") == true)
        #expect(
            result.check(.active)?.detail
                == "data.signedTransactionInfo \(granted) (access checked at 2025-10-02T07:07:00.000Z)")
        #expect(try nested(result, "data.signedTransactionInfo").summary?.hasSuffix("; \(granted).") == true)
        #expect(
            try nested(result, "data.signedRenewalInfo").summary
                == "Renewal info for com.getsession.org.pro_sub: auto-renew on, renews 2025-10-02.")
    }

    @Test func aRenewalDateInThePastReadsAsPast() throws {
        let renewal = try nested(try inspect(Self.subscribed), "data.signedRenewalInfo")
        #expect(
            renewal.summary == "Renewal info for com.getsession.org.pro_sub: auto-renew on, renewal was due 2025-10-02."
        )
    }

    @Test func theAccessDecisionIsTheNestedTransactions() throws {
        let result = try inspect(Self.subscribed)
        let decision = try #require(result.access)
        #expect(decision.path == "data.signedTransactionInfo")
        #expect(decision.kind == .transaction)
        #expect(decision.time == Self.now)
        #expect(decision.access.grantsAccess == false)
        #expect(decision.access.explanation == Self.expiredWords)
        #expect(decision.access.briefPhrase == "grants no access (expired 2025-10-02)")
        #expect(result.fullPresentation?.access == decision)
        #expect(result.isAuthentic)
        #expect(result.isAppleSigned)

        let test = try inspect("notification-test-sandbox-2025.jws")
        #expect(test.access?.path == nil)
        #expect(test.access?.access.grantsAccess == false)
        #expect(test.access?.access.state == .notAnEntitlement)
        #expect(test.access?.access.briefPhrase == "not an entitlement (no transaction in it)")
    }

    @Test func transactionSummaryAndRequireActiveShareTheirWords() throws {
        let sample = "transaction-sandbox-2022.jws"
        let words = "grants no access: expired 2022-10-24T12:53:13.000Z"
        let result = try inspect(sample) { $0.requireActive = true }
        #expect(result.status == .inactive)
        #expect(result.reason == "active: \(words) (access checked now)")
        #expect(
            result.summary
                == "Auto-renewable subscription Com.VoiceRecording.Telephone.103, purchased 2022-10-24; \(words).")
        #expect(result.access?.access.briefPhrase == "grants no access (expired 2022-10-24)")
    }

    @Test func renewalDatesReadAsPastOrFuture() throws {
        func summary(_ members: String) throws -> String {
            let json = #"{"productId":"p","signedDate":1735689600000"# + members + "}"
            let payload = try #require(try JSONValue.decode(Array(json.utf8)).objectValue)
            return Entitlement.summary(kind: .renewalInfo, payload: payload, now: Fixtures.now)  // 2025-06-01
        }
        #expect(
            try summary(#","autoRenewStatus":1,"renewalDate":1748000000000"#)
                == "Renewal info for p: auto-renew on, renewal was due 2025-05-23.")
        #expect(
            try summary(#","autoRenewStatus":1,"renewalDate":1751328000000"#)
                == "Renewal info for p: auto-renew on, renews 2025-07-01.")
        #expect(
            try summary(#","autoRenewStatus":1,"renewalDate":1751328000000,"autoRenewProductId":"q""#)
                == "Renewal info for p: auto-renew on, renews as q on 2025-07-01.")
        #expect(
            try summary(#","autoRenewStatus":1,"renewalDate":1748000000000,"autoRenewProductId":"q""#)
                == "Renewal info for p: auto-renew on, renews as q, renewal was due 2025-05-23.")
        #expect(
            try summary(#","autoRenewStatus":1,"isInBillingRetryPeriod":true,"gracePeriodExpiresDate":1748000000000"#)
                == "Renewal info for p: auto-renew on; in billing retry; grace period ended 2025-05-23.")
        #expect(
            try summary(#","autoRenewStatus":1,"isInBillingRetryPeriod":true,"gracePeriodExpiresDate":1751328000000"#)
                == "Renewal info for p: auto-renew on; in billing retry; grace period until 2025-07-01.")
    }

    @Test func authenticityIgnoresExpectationsButNotCryptography() throws {
        let pki = Fixtures.pki
        let expired = pki.sign(payloadJSON: TestPayloads.transaction())  // expired 2025-01-31
        let inactive = Fixtures.inspect(expired) { $0.requireActive = true }
        #expect(inactive.status == .inactive)
        #expect(inactive.isAuthentic)
        #expect(!inactive.isAppleSigned)  // the test PKI is not Apple's
        let unchecked = Fixtures.inspect(expired) {
            $0.requireActive = true
            $0.verifySignatures = false
        }
        #expect(unchecked.status == .inactive)
        #expect(!unchecked.isAuthentic)
        let forged = Fixtures.inspect(Fixtures.attacker.sign(payloadJSON: TestPayloads.transaction()))
        #expect(forged.status == .invalidChain)
        #expect(!forged.isAuthentic)
    }
}
