import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// `Timeline` (issue 29): a webhook log of minted, verified notifications folded into each
/// subscription's state, and every anomaly kind found, each with the items it concerns.
@Suite struct TimelineTests {
    static let day: Int64 = 86_400_000
    /// 2025-01-01T00:00:00Z: inside the test leaf's validity.
    static let start: Int64 = 1_735_689_600_000

    /// A monthly transaction's payload: `number` is its period (0 the first).
    static func transaction(
        _ id: String, original: String = "1000", period: Int64, product: String = "pro.monthly",
        revoked: Int64? = nil, token: String = "7E3FB20B-4CDB-47CC-936D-99D65F608138", purchase: Int64? = nil
    ) -> String {
        let purchased = purchase ?? start + period * 30 * day
        let expires = start + (period + 1) * 30 * day
        let revocation = revoked.map { ",\"revocationDate\":\($0),\"revocationReason\":0" } ?? ""
        return """
            {"transactionId":"\(id)","originalTransactionId":"\(original)","bundleId":"\(TestPayloads.bundleId)",\
            "productId":"\(product)","purchaseDate":\(purchased),"originalPurchaseDate":\(start),\
            "expiresDate":\(expires),"quantity":1,"type":"Auto-Renewable Subscription",\
            "inAppOwnershipType":"PURCHASED","appAccountToken":"\(token)","signedDate":\(purchased),\
            "environment":"Sandbox"\(revocation)}
            """
    }

    /// A notification nesting `transaction` (signed), signed at `signed`.
    static func notification(
        _ type: String, subtype: String? = nil, uuid: String, signed: Int64, transaction: String?,
        renewal: String? = nil
    ) -> String {
        let nested = transaction.map { ",\"signedTransactionInfo\":\"\(Fixtures.pki.sign(payloadJSON: $0))\"" } ?? ""
        let renewalInfo = renewal.map { ",\"signedRenewalInfo\":\"\(Fixtures.pki.sign(payloadJSON: $0))\"" } ?? ""
        let sub = subtype.map { "\"subtype\":\"\($0)\"," } ?? ""
        return Fixtures.pki.sign(
            payloadJSON: """
                {"notificationType":"\(type)",\(sub)"notificationUUID":"\(uuid)","data":{"bundleId":\
                "\(TestPayloads.bundleId)","environment":"Sandbox"\(nested)\(renewalInfo)},"version":"2.0",\
                "signedDate":\(signed)}
                """)
    }

    static func renewal(autoRenew: Int, signed: Int64) -> String {
        """
        {"originalTransactionId":"1000","autoRenewProductId":"pro.monthly","productId":"pro.monthly",\
        "autoRenewStatus":\(autoRenew),"signedDate":\(signed),"environment":"Sandbox"}
        """
    }

    static func fold(_ tokens: [String]) -> Timeline {
        let verifier = Verifier(options: Fixtures.options())
        var timeline = Timeline()
        for token in tokens { timeline.add(verifier.inspect(token, source: "log")) }
        return timeline
    }

    /// A subscription's life as Apple sends it: purchase, two renewals.
    static let subscribed = notification(
        "SUBSCRIBED", subtype: "INITIAL_BUY", uuid: "u1", signed: start, transaction: transaction("1000", period: 0))
    static let renewed1 = notification(
        "DID_RENEW", uuid: "u2", signed: start + 30 * day, transaction: transaction("1001", period: 1))
    static let renewed2 = notification(
        "DID_RENEW", uuid: "u3", signed: start + 60 * day, transaction: transaction("1002", period: 2))

    @Test func aCleanLogHasNoAnomalyAndFoldsTheState() throws {
        let timeline = Self.fold([Self.subscribed, Self.renewed1, Self.renewed2])
        #expect(timeline.anomalies().isEmpty)
        let at = Date(timeIntervalSince1970: Double(Self.start + 75 * Self.day) / 1_000)
        let subscription = try #require(timeline.subscriptions(at: at).first)
        #expect(timeline.subscriptions(at: at).count == 1)
        #expect(subscription.id == "1000" && subscription.productId == "pro.monthly")
        #expect(subscription.expiresDate == Self.start + 90 * Self.day)
        #expect(subscription.appAccountTokens == ["7e3fb20b-4cdb-47cc-936d-99d65f608138"])
        #expect(subscription.access.grantsAccess == true)
        #expect(
            subscription.events.map { timeline.events[$0].name } == [
                "SUBSCRIBED/INITIAL_BUY", "DID_RENEW", "DID_RENEW",
            ])
        // After the last period: no access.
        let later = Date(timeIntervalSince1970: Double(Self.start + 95 * Self.day) / 1_000)
        #expect(timeline.subscriptions(at: later).first?.access.grantsAccess == false)
    }

    @Test func aRepeatedDeliveryIsOneEventAndADuplicate() {
        let timeline = Self.fold([Self.subscribed, Self.renewed1, Self.subscribed])
        #expect(timeline.events.count == 2)
        let anomalies = timeline.anomalies()
        #expect(anomalies.map(\.kind) == [.duplicate])
        #expect(anomalies.first?.items == [1, 3])
        #expect(anomalies.first?.detail == "SUBSCRIBED/INITIAL_BUY u1 delivered 2 times")
    }

    @Test func oneUUIDWithTwoPayloadsAndOneTransactionDescribedTwiceAreConflicts() {
        let other = Self.notification(
            "DID_RENEW", uuid: "u1", signed: Self.start, transaction: Self.transaction("1000", period: 0))
        let byUUID = Self.fold([Self.subscribed, other]).anomalies()
        #expect(byUUID.map(\.kind) == [.conflict])
        #expect(byUUID.first?.items == [1, 2])
        let otherProduct = Self.notification(
            "DID_CHANGE_RENEWAL_PREF", uuid: "u9", signed: Self.start + Self.day,
            transaction: Self.transaction("1000", period: 0, product: "pro.yearly"))
        let byTransaction = Self.fold([Self.subscribed, otherProduct]).anomalies()
        #expect(byTransaction.map(\.kind) == [.conflict])
        #expect(byTransaction.first?.identifier == "1000")
    }

    /// State moves by signing time: a renewal that arrives first still ends up the latest period.
    @Test func anEventArrivingAfterALaterSignedOneIsOutOfOrder() throws {
        let timeline = Self.fold([Self.renewed1, Self.subscribed, Self.renewed2])
        let anomalies = timeline.anomalies()
        #expect(anomalies.map(\.kind) == [.outOfOrder])
        #expect(anomalies.first?.items == [1, 2])
        #expect(
            anomalies.first?.detail
                == "SUBSCRIBED/INITIAL_BUY (signed 2025-01-01T00:00:00.000Z) arrived after DID_RENEW (signed "
                + "2025-01-31T00:00:00.000Z)")
        let subscription = try #require(timeline.subscriptions(at: Date()).first)
        #expect(subscription.expiresDate == Self.start + 90 * Self.day)
        #expect(subscription.events.map { timeline.events[$0].arrival } == [2, 1, 3])
    }

    @Test func aRefundRevokesOnlyWhatWasGrantedAndOtherwiseIsAnAnomaly() throws {
        let refundDate = Self.start + 70 * Self.day
        let refund = Self.notification(
            "REFUND", uuid: "u4", signed: refundDate,
            transaction: Self.transaction("1002", period: 2, revoked: refundDate))
        let timeline = Self.fold([Self.subscribed, Self.renewed1, Self.renewed2, refund])
        #expect(timeline.anomalies().isEmpty)
        let at = Date(timeIntervalSince1970: Double(Self.start + 75 * Self.day) / 1_000)
        let subscription = try #require(timeline.subscriptions(at: at).first)
        #expect(subscription.revocationDate == refundDate)
        #expect(subscription.access.grantsAccess == false)
        // A refund of a transaction never seen granted.
        let stray = Self.notification(
            "REFUND", uuid: "u5", signed: refundDate,
            transaction: Self.transaction("2000", original: "2000", period: 0, revoked: refundDate))
        let anomalies = Self.fold([Self.subscribed, stray]).anomalies()
        #expect(anomalies.map(\.kind) == [.refundWithoutPurchase])
        #expect(anomalies.first?.identifier == "2000" && anomalies.first?.subscriptionID == "2000")
    }

    /// A renewal long after the previous period expired needs a DID_FAIL_TO_RENEW or EXPIRED.
    @Test func aLapseWithoutItsNotificationIsAGap() {
        let late = Self.notification(
            "DID_RENEW", subtype: "BILLING_RECOVERY", uuid: "u6", signed: Self.start + 40 * Self.day,
            transaction: Self.transaction("1001", period: 1, purchase: Self.start + 40 * Self.day))
        let gap = Self.fold([Self.subscribed, late]).anomalies()
        #expect(gap.map(\.kind) == [.gap])
        #expect(gap.first?.items == [1, 2] && gap.first?.identifier == "1001")
        let failed = Self.notification(
            "DID_FAIL_TO_RENEW", uuid: "u7", signed: Self.start + 30 * Self.day,
            transaction: Self.transaction("1000", period: 0))
        #expect(Self.fold([Self.subscribed, failed, late]).anomalies().isEmpty)
        // Within a billing grace period its renewal info signs, no notification is owed.
        let graced = Fixtures.pki.sign(payloadJSON: Self.graceRenewal(until: Self.start + 46 * Self.day))
        #expect(Self.fold([Self.subscribed, graced, late]).anomalies().isEmpty)
        // One that ended before the renewal does not cover it.
        let short = Fixtures.pki.sign(payloadJSON: Self.graceRenewal(until: Self.start + 36 * Self.day))
        #expect(Self.fold([Self.subscribed, short, late]).anomalies().map(\.kind) == [.gap])
    }

    /// Renewal info in billing retry, with a grace period until `until`.
    static func graceRenewal(until: Int64) -> String {
        """
        {"originalTransactionId":"1000","autoRenewProductId":"pro.monthly","productId":"pro.monthly",\
        "autoRenewStatus":1,"isInBillingRetryPeriod":true,"gracePeriodExpiresDate":\(until),\
        "signedDate":\(start + 30 * day),"environment":"Sandbox"}
        """
    }

    /// A subscription's access is the one model's: the latest renewal info's grace period grants.
    @Test func aSubscriptionInItsGracePeriodGrantsUntilItEnds() {
        let graced = Fixtures.pki.sign(payloadJSON: Self.graceRenewal(until: Self.start + 46 * Self.day))
        let timeline = Self.fold([Self.subscribed, graced])
        let during = Date(timeIntervalSince1970: Double(Self.start + 35 * Self.day) / 1000)
        let access = timeline.subscriptions(at: during)[0].access
        #expect(access.state == .billingGracePeriod && access.grantsAccess == true, "\(access.explanation)")
        #expect(access.decidedBy == ["item 1", "item 2"])
        let after = Date(timeIntervalSince1970: Double(Self.start + 47 * Self.day) / 1000)
        let retry = timeline.subscriptions(at: after)[0].access
        #expect(retry.state == .billingRetry && retry.grantsAccess == false, "\(retry.explanation)")
    }

    /// An item that fails verification is reported, never folded.
    @Test func anInvalidItemIsSkippedAndChangesNothing() throws {
        let forged = NestedTokenTests.tamper(
            Self.renewed2,
            payload: "{\"notificationType\":\"DID_RENEW\",\"notificationUUID\":\"u3\",\"signedDate\":\(Self.start)}")
        let timeline = Self.fold([Self.subscribed, forged, Self.renewed1])
        #expect(timeline.skipped.map(\.arrival) == [2])
        #expect(timeline.skipped.first?.status == .invalidSignature)
        #expect(timeline.events.count == 2)
        #expect(timeline.subscriptions(at: Date()).first?.expiresDate == Self.start + 60 * Self.day)
        #expect(timeline.anomalies().isEmpty)
    }

    @Test func renewalIntentIsTheLatestSignedRenewalInfos() throws {
        let off = Self.notification(
            "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", uuid: "u8", signed: Self.start + 10 * Self.day,
            transaction: Self.transaction("1000", period: 0),
            renewal: Self.renewal(autoRenew: 0, signed: Self.start + 10 * Self.day))
        let on = Self.notification(
            "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_ENABLED", uuid: "u9", signed: Self.start + 5 * Self.day,
            transaction: Self.transaction("1000", period: 0),
            renewal: Self.renewal(autoRenew: 1, signed: Self.start + 5 * Self.day))
        // The later-signed one (off) arrives first: it still decides.
        let timeline = Self.fold([Self.subscribed, off, on])
        #expect(timeline.subscriptions(at: Date()).first?.autoRenewStatus == 0)
        #expect(timeline.anomalies().map(\.kind) == [.outOfOrder])
    }

    /// What Apple's record holds and the inputs do not: by notificationUUID, by transactionId.
    @Test func apple_sRecordNamesWhatWasMissed() {
        let inputs = Self.fold([Self.subscribed, Self.renewed2])
        let record = Self.fold([
            Self.subscribed, Self.renewed1, Self.renewed2,
            Fixtures.pki.sign(payloadJSON: Self.transaction("1003", period: 3)),
        ])
        let missed = inputs.reconcile(against: record)
        #expect(missed.map(\.kind) == [.missed, .missed])
        #expect(missed.map(\.identifier) == ["u2", "1003"])
        #expect(inputs.reconcile(against: inputs).isEmpty)
    }
}
