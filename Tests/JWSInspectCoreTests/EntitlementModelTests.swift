import Foundation
import Testing

@testable import JWSInspectCore

/// Issue 47: the one entitlement model (`Entitlement.decide`), state by state, on a token's own
/// facts, a notification's nested ones and an API answer's (customer, renewal info, status).
/// Each case fails if the rule it names is removed.
@Suite struct EntitlementModelTests {
    /// 2026-06-01T00:00:00Z, the access time of every case.
    static let at = Date(timeIntervalSince1970: 1_780_272_000)
    static let day = 86_400_000.0
    /// Milliseconds `days` from the access time.
    static func ms(_ days: Double) -> JSONValue { .double(1_780_272_000_000 + days * day) }

    /// A monthly subscription bought 20 days before the access time, expiring `expires` days from it.
    static func subscription(expires: Double = 10, _ extra: [String: JSONValue] = [:]) -> [String: JSONValue] {
        var payload: [String: JSONValue] = [
            "type": .string("Auto-Renewable Subscription"), "transactionId": .string("2000000000000002"),
            "originalTransactionId": .string("2000000000000001"), "purchaseDate": ms(-20),
            "expiresDate": ms(expires), "inAppOwnershipType": .string("PURCHASED"),
        ]
        payload.merge(extra) { $1 }
        return payload
    }

    static func renewal(_ members: [String: JSONValue], original: String = "2000000000000001") -> Entitlement.Signed {
        var payload = members
        payload["originalTransactionId"] = .string(original)
        payload["signedDate"] = payload["signedDate"] ?? ms(0)
        return Entitlement.Signed(payload: payload, path: "data.signedRenewalInfo")
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let facts: Entitlement.Facts
        let state: Entitlement.State
        let grants: Bool?
        /// Words the explanation holds.
        let words: String
        var testDescription: String { name }
    }

    static func facts(
        _ payload: [String: JSONValue], kind: PayloadKind = .transaction, renewal: Entitlement.Signed? = nil,
        status: Int64? = nil, customer: Entitlement.Customer? = nil, notification: (String, String?)? = nil
    ) -> Entitlement.Facts {
        var facts = Entitlement.Facts(kind: kind, payload: payload)
        facts.renewal = renewal
        facts.status = status.map { .init(value: .integer($0), path: "data[0].lastTransactions[0].status", asOf: at) }
        facts.customer = customer
        facts.notificationType = notification?.0
        facts.subtype = notification?.1
        return facts
    }

    static let grace: [String: JSONValue] = [
        "gracePeriodExpiresDate": ms(10), "isInBillingRetryPeriod": .bool(true),
    ]

    static let cases: [Case] = [
        Case(
            name: "a subscription in its term", facts: facts(subscription()), state: .active, grants: true,
            words: "grants access until 2026-06-11"),
        Case(
            name: "a subscription past its term", facts: facts(subscription(expires: -5)), state: .expired,
            grants: false, words: "expired 2026-05-27"),
        Case(
            name: "before purchaseDate nothing is granted",
            facts: facts(subscription(["purchaseDate": ms(3)])), state: .notYetPurchased, grants: false,
            words: "not yet purchased"),
        Case(
            name: "refunded before the access time",
            facts: facts(subscription(["revocationDate": ms(-2), "revocationReason": .integer(1)])),
            state: .revoked, grants: false, words: "revoked 2026-05-30 (refunded: issue in the app)"),
        Case(
            name: "refunded after the access time grants until the refund",
            facts: facts(subscription(["revocationDate": ms(4)])), state: .active, grants: true,
            words: "grants access until 2026-06-05T00:00:00.000Z (revoked then)"),
        Case(
            name: "a Family Sharing REVOKE reads as revoked from the family member",
            facts: facts(
                subscription(["revocationDate": ms(-1), "inAppOwnershipType": .string("FAMILY_SHARED")]),
                notification: ("REVOKE", nil)),
            state: .revoked, grants: false, words: "revoked from this family member 2026-05-31"),
        Case(
            name: "upgraded", facts: facts(subscription(["isUpgraded": .bool(true)])), state: .upgraded,
            grants: false, words: "upgraded"),
        Case(
            name: "a consumable", facts: facts(["type": .string("Consumable"), "purchaseDate": ms(-1)]),
            state: .notAnEntitlement, grants: false, words: "not an entitlement: a consumable"),
        Case(
            name: "an app transaction", facts: facts(["bundleId": .string("b")], kind: .appTransaction),
            state: .notAnEntitlement, grants: false,
            words: "not an entitlement: an app transaction proves the app was installed"),
        Case(
            name: "renewal info alone", facts: facts(grace, kind: .renewalInfo), state: .notAnEntitlement,
            grants: false,
            words: "renewal info alone"),
        Case(
            name: "a realtime request", facts: facts([:], kind: .realtimeRequest), state: .notAnEntitlement,
            grants: false,
            words: "Retention Messaging request"),
        Case(
            name: "billing grace period from the same subscription's renewal info",
            facts: facts(subscription(expires: -3), renewal: renewal(grace)), state: .billingGracePeriod,
            grants: true,
            words: "grants access until 2026-06-11T00:00:00.000Z: billing grace period, Apple is retrying the payment"),
        Case(
            name: "a grace period keyed on gracePeriodExpiresDate, not on the flag",
            facts: facts(subscription(expires: -3), renewal: renewal(["gracePeriodExpiresDate": ms(10)])),
            state: .billingGracePeriod, grants: true, words: "billing grace period"),
        Case(
            name: "another subscription's renewal info is not used",
            facts: facts(subscription(expires: -3), renewal: renewal(grace, original: "2000000000000999")),
            state: .expired, grants: false, words: "expired 2026-05-29"),
        Case(
            name: "billing retry after the grace period ended",
            facts: facts(
                subscription(expires: -20),
                renewal: renewal(["gracePeriodExpiresDate": ms(-4), "isInBillingRetryPeriod": .bool(true)])),
            state: .billingRetry, grants: false,
            words: "billing retry since 2026-05-12T00:00:00.000Z: Apple is retrying the payment; its grace period ended"
        ),
        Case(
            name: "billing retry without a grace period",
            facts: facts(subscription(expires: -3), renewal: renewal(["isInBillingRetryPeriod": .bool(true)])),
            state: .billingRetry, grants: false, words: "billing retry since 2026-05-29"),
        Case(
            name: "Apple's status 1 agrees with an active subscription", facts: facts(subscription(), status: 1),
            state: .active, grants: true, words: "grants access until"),
        Case(
            name: "Apple's status 2 agrees with an expired one", facts: facts(subscription(expires: -1), status: 2),
            state: .expired, grants: false, words: "expired"),
        Case(
            name: "Apple's status 3 agrees with billing retry",
            facts: facts(
                subscription(expires: -3), renewal: renewal(["isInBillingRetryPeriod": .bool(true)]), status: 3),
            state: .billingRetry, grants: false, words: "billing retry"),
        Case(
            name: "Apple's status 4 agrees with a billing grace period",
            facts: facts(subscription(expires: -3), renewal: renewal(grace), status: 4), state: .billingGracePeriod,
            grants: true, words: "billing grace period"),
        Case(
            name: "Apple's status 5 agrees with a revocation",
            facts: facts(subscription(["revocationDate": ms(-1)]), status: 5), state: .revoked, grants: false,
            words: "revoked"),
        Case(
            name: "Apple's status 4 against an expired subscription without grace decides nothing",
            facts: facts(subscription(expires: -3), status: 4), state: .undecided, grants: nil,
            words: "Apple's status 4 (billing grace period)"),
        Case(
            name: "Apple's status 1 against a revoked transaction decides nothing",
            facts: facts(subscription(["revocationDate": ms(-1)]), status: 1), state: .undecided, grants: nil,
            words: "disagrees with the signed transaction"),
        Case(
            name: "a status Apple does not define decides nothing", facts: facts(subscription(), status: 9),
            state: .undecided, grants: nil, words: "status 9 is not one Apple defines"),
        Case(
            name: "the transaction asked about",
            facts: facts(subscription(), customer: .transaction("2000000000000002")),
            state: .active, grants: true, words: "grants access until"),
        Case(
            name: "another customer's transaction",
            facts: facts(subscription(), customer: .transaction("2000000000000777")),
            state: .wrongCustomer, grants: false, words: "wrong customer"),
        Case(
            name: "a subscription asked about by its original transaction",
            facts: facts(subscription(), customer: .subscription("2000000000000001")), state: .active, grants: true,
            words: "grants access until"),
        Case(
            name: "a subscription not tied to the transaction asked by",
            facts: facts(subscription(), customer: .subscription("2000000000000777")), state: .undecided,
            grants: nil, words: "is not tied to 2000000000000777 by its signed IDs"),
        Case(
            name: "tied through the original transaction Get Transaction Info resolved",
            facts: facts(
                subscription(),
                customer: .subscription(
                    "2000000000000009",
                    resolved: .init(originalTransactionId: "2000000000000001", appTransactionId: "7"))),
            state: .active, grants: true, words: "grants access until"),
        Case(
            name: "tied through the account's appTransactionId (another subscription group)",
            facts: facts(
                subscription(["appTransactionId": .string("7"), "originalTransactionId": .string("2000000000000555")]),
                customer: .subscription(
                    "2000000000000009",
                    resolved: .init(originalTransactionId: "2000000000000001", appTransactionId: "7"))),
            state: .active, grants: true, words: "grants access until"),
        Case(
            name: "another account's appTransactionId does not tie",
            facts: facts(
                subscription(["appTransactionId": .string("8"), "originalTransactionId": .string("2000000000000555")]),
                customer: .subscription(
                    "2000000000000009",
                    resolved: .init(originalTransactionId: "2000000000000001", appTransactionId: "7"))),
            state: .undecided, grants: nil, words: "is not tied to 2000000000000009"),
        Case(
            name: "an answer no signed data ties to the customer",
            facts: facts(subscription(), customer: .untiable("an order lookup cannot be tied")), state: .undecided,
            grants: nil, words: "an order lookup cannot be tied"),
        Case(
            name: "a REFUND notification whose transaction is not revoked",
            facts: facts(subscription(), notification: ("REFUND", nil)), state: .undecided, grants: nil,
            words: "contradict each other"),
        Case(
            name: "a grace-period notification without gracePeriodExpiresDate",
            facts: facts(
                subscription(expires: -3), renewal: renewal(["isInBillingRetryPeriod": .bool(true)]),
                notification: ("DID_FAIL_TO_RENEW", "GRACE_PERIOD")),
            state: .undecided, grants: nil, words: "contradict each other"),
        Case(
            name: "a grace-period notification with it",
            facts: facts(
                subscription(expires: -3), renewal: renewal(grace), notification: ("DID_FAIL_TO_RENEW", "GRACE_PERIOD")),
            state: .billingGracePeriod, grants: true, words: "billing grace period"),
        Case(
            name: "every Advanced Commerce item revoked: nothing is granted",
            facts: facts(
                subscription([
                    "advancedCommerceInfo": .object([
                        "items": .array([
                            .object(["SKU": .string("a"), "revocationDate": ms(-1)]),
                            .object(["SKU": .string("b"), "revocationDate": .string("soon")]),
                        ])
                    ])
                ])),
            state: .revoked, grants: false, words: "every Advanced Commerce item is revoked (\"a\", \"b\")"),
        Case(
            name: "some Advanced Commerce items revoked: the rest grants, and the words say which",
            facts: facts(
                subscription([
                    "advancedCommerceInfo": .object([
                        "items": .array([
                            .object(["SKU": .string("a"), "revocationDate": ms(-1)]),
                            .object(["SKU": .string("b"), "revocationDate": ms(2)]), .object(["SKU": .string("c")]),
                        ])
                    ])
                ])),
            state: .active, grants: true, words: "; Advanced Commerce item(s) revoked: \"a\""),
        Case(
            name: "a non-consumable is owned",
            facts: facts(["type": .string("Non-Consumable"), "purchaseDate": ms(-1)]),
            state: .active, grants: true, words: "a non-consumable, not revoked"),
    ]

    @Test(arguments: cases)
    func eachState(_ test: Case) {
        let access = Entitlement.decide(test.facts, at: Self.at)
        #expect(access.state == test.state, "\(access.explanation)")
        #expect(access.grantsAccess == test.grants, "\(access.explanation)")
        #expect(access.explanation.contains(test.words), "\(access.explanation)")
        // Only the two granting states grant; `until` is set exactly when an expiring grant is.
        #expect((access.grantsAccess == true) == [.active, .billingGracePeriod].contains(access.state))
    }

    @Test func whatDecidedIsNamed() {
        let graced = Entitlement.decide(
            Self.facts(Self.subscription(expires: -3), renewal: Self.renewal(Self.grace), status: 4), at: Self.at)
        #expect(graced.decidedBy == ["payload", "data.signedRenewalInfo", "data[0].lastTransactions[0].status"])
        #expect(graced.until == Date(timeIntervalSince1970: 1_780_272_000 + 10 * 86_400))
        #expect(graced.briefPhrase == "grants access until 2026-06-11 (billing grace period)")
        let active = Entitlement.decide(Self.facts(Self.subscription(), renewal: Self.renewal(Self.grace)), at: Self.at)
        #expect(active.decidedBy == ["payload"], "renewal info that did not decide is not named")
        let app = Entitlement.decide(Self.facts([:], kind: .appTransaction), at: Self.at)
        #expect(app.briefPhrase == "not an entitlement (proves the app was installed)")
        let other = Entitlement.decide(Self.facts(Self.subscription(), customer: .transaction("9")), at: Self.at)
        #expect(other.briefPhrase == "wrong customer (not transaction 9)")
    }

    /// Renewal info is a snapshot of its signedDate: far from the access time, the words say so.
    @Test func aSnapshotFarFromTheAccessTimeIsSaid() {
        var old = Self.grace
        old["signedDate"] = Self.ms(-3)
        let access = Entitlement.decide(
            Self.facts(Self.subscription(expires: -5), renewal: Self.renewal(old)), at: Self.at)
        #expect(access.state == .billingGracePeriod)
        #expect(access.explanation.hasSuffix("3 day(s) before the access time"), "\(access.explanation)")
        let fresh = Entitlement.decide(
            Self.facts(Self.subscription(expires: -5), renewal: Self.renewal(Self.grace)), at: Self.at)
        #expect(!fresh.explanation.contains("snapshot"))
    }

    /// A notification decides on its nested transaction, with its renewal info and status beside.
    @Test func aNotificationsFacts() {
        let payload: [String: JSONValue] = [
            "notificationType": .string("DID_FAIL_TO_RENEW"), "subtype": .string("GRACE_PERIOD"),
            "signedDate": Self.ms(0), "data": .object(["status": .integer(4)]),
        ]
        let nested: [(path: String, kind: PayloadKind, payload: [String: JSONValue])] = [
            ("data.signedTransactionInfo", .transaction, Self.subscription(expires: -3)),
            ("data.signedRenewalInfo", .renewalInfo, Self.renewal(Self.grace).payload),
        ]
        let facts = Entitlement.Facts.of(kind: .notification, payload: payload, nested: nested)
        #expect(facts.kind == .transaction && facts.path == "data.signedTransactionInfo")
        #expect(facts.renewal?.path == "data.signedRenewalInfo")
        #expect(facts.status == .init(value: .integer(4), path: "data.status", asOf: Self.at))
        let access = Entitlement.decide(facts, at: Self.at)
        #expect(access.state == .billingGracePeriod && access.grantsAccess == true)
        #expect(access.decidedBy == ["data.signedTransactionInfo", "data.signedRenewalInfo", "data.status"])

        // RESCIND_CONSENT: only an app transaction is nested, and it is not an entitlement.
        let rescind = Entitlement.Facts.of(
            kind: .notification, payload: ["notificationType": .string("RESCIND_CONSENT")],
            nested: [("appData.signedAppTransactionInfo", .appTransaction, [:])])
        let decided = Entitlement.decide(rescind, at: Self.at)
        #expect(decided.state == .notAnEntitlement && decided.grantsAccess == false)
        #expect(decided.decidedBy == ["appData.signedAppTransactionInfo"])
    }

    /// A legacy receipt's entries go through the same standing rule (`Entitlement.standing`).
    @Test func aRefundLaterAppliesToEveryPurchase() {
        var purchase = Entitlement.Purchase(
            revoked: .present, upgraded: .absent, term: .nonConsumable, purchased: nil, expiry: .none)
        #expect(Entitlement.standing(purchase, at: Self.at) == .revoked)
        purchase.revokedAt = Self.at.addingTimeInterval(3_600)
        #expect(Entitlement.standing(purchase, at: Self.at) == .active(until: Self.at.addingTimeInterval(3_600)))
        #expect(Entitlement.standing(purchase, at: Self.at.addingTimeInterval(7_200)) == .revoked)
    }
}

/// A legacy receipt's cancellation takes effect at its `cancellation_date`, as a transaction's
/// revocation does: before it, the entry grants until then.
@Suite struct ReceiptCancellationTests {
    @Test func aCancellationStillToComeGrantsUntilIt() {
        let at = Date(timeIntervalSince1970: 1_780_272_000)
        var purchase = Entitlement.Purchase(
            revoked: .present, upgraded: .absent, term: .nonConsumable, purchased: nil,
            expiry: .date(at.addingTimeInterval(86_400)))
        purchase.revokedAt = at.addingTimeInterval(3_600)
        #expect(Entitlement.standing(purchase, at: at) == .active(until: at.addingTimeInterval(3_600)))
        purchase.revokedAt = at.addingTimeInterval(-1)
        #expect(Entitlement.standing(purchase, at: at) == .revoked)
    }
}
