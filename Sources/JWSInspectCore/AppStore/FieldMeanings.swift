/// What Apple's enumerated field values mean, as Apple documents them.
///
/// An unknown value is never dropped: `meaning(field:value:)` reports it as
/// unknown to this version, and renderers show the raw value with that flag.
package enum FieldMeanings {
    /// The outcome of looking a value up.
    package enum Meaning: Sendable, Equatable {
        /// The field is not an enumeration jwsinspect knows.
        case notEnumerated
        /// A documented value, with its meaning.
        case known(String)
        /// An enumerated field with a value this version does not know.
        case unknownValue
    }

    package static func meaning(field: String, value: JSONValue) -> Meaning {
        if let table = integerEnums[field] {
            guard case .integer(let number) = value else { return .unknownValue }
            return table[number].map(Meaning.known) ?? .unknownValue
        }
        if let table = stringEnums[field] {
            guard case .string(let text) = value, let text = Exact.ascii(text) else { return .unknownValue }
            return table[text].map(Meaning.known) ?? .unknownValue
        }
        return .notEnumerated
    }

    static let integerEnums: [String: [Int64: String]] = [
        "offerType": [1: "introductory offer", 2: "promotional offer", 3: "offer code", 4: "win-back offer"],
        "revocationReason": [0: "refunded for another reason", 1: "refunded: issue in the app"],
        "autoRenewStatus": [0: "off: will not renew", 1: "on: will renew"],
        "expirationIntent": [
            1: "customer cancelled", 2: "billing error", 3: "did not consent to a price increase",
            4: "product not available at renewal", 5: "other",
        ],
        "priceIncreaseStatus": [
            0: "customer has not responded to the price increase",
            1: "customer consented (or was notified where no consent is needed)",
        ],
        "status": [1: "active", 2: "expired", 3: "billing retry", 4: "billing grace period", 5: "revoked"],
    ]

    static let environments = [
        "Production": "live App Store", "Sandbox": "App Store sandbox",
        "Xcode": "StoreKit Testing in Xcode (not the App Store)", "LocalTesting": "local testing (not the App Store)",
    ]

    /// The values Apple documents for a string enum field (`notificationType`, `subtype`, …),
    /// sorted; empty for a field that is not one.
    package static func documentedValues(of field: String) -> [String] {
        (stringEnums[field] ?? [:]).keys.sorted()
    }

    static let stringEnums: [String: [String: String]] = [
        "notificationType": [
            "SUBSCRIBED": "customer subscribed", "DID_CHANGE_RENEWAL_PREF": "customer changed the renewal product",
            "DID_CHANGE_RENEWAL_STATUS": "customer changed auto-renew", "OFFER_REDEEMED": "customer redeemed an offer",
            "DID_RENEW": "subscription renewed", "EXPIRED": "subscription expired",
            "DID_FAIL_TO_RENEW": "renewal failed (billing issue)", "GRACE_PERIOD_EXPIRED": "billing grace period ended",
            "PRICE_INCREASE": "price increase", "REFUND": "App Store refunded a transaction",
            "REFUND_DECLINED": "App Store declined a refund",
            "CONSUMPTION_REQUEST": "App Store asks for consumption data",
            "RENEWAL_EXTENDED": "renewal date extended", "REVOKE": "Family Sharing access revoked",
            "TEST": "test notification", "RENEWAL_EXTENSION": "renewal date extension for many subscribers",
            "REFUND_REVERSED": "refund reversed", "EXTERNAL_PURCHASE_TOKEN": "external purchase token",
            "ONE_TIME_CHARGE": "one-time purchase", "RESCIND_CONSENT": "parent rescinded consent",
            "METADATA_UPDATE": "subscription metadata changed", "MIGRATION": "subscription migrated",
            // Apple's archived changelogs spell it MIGRATE.
            "MIGRATE": "subscription migrated (MIGRATION's archived spelling)",
            "PRICE_CHANGE": "price change",
        ],
        "subtype": [
            "INITIAL_BUY": "first purchase", "RESUBSCRIBE": "resubscribed", "DOWNGRADE": "downgrade",
            "UPGRADE": "upgrade", "AUTO_RENEW_ENABLED": "auto-renew turned on",
            "AUTO_RENEW_DISABLED": "auto-renew turned off",
            "VOLUNTARY": "customer chose not to renew", "BILLING_RETRY": "billing retry ended without recovery",
            "PRICE_INCREASE": "did not consent to a price increase", "GRACE_PERIOD": "in billing grace period",
            "PENDING": "pending customer consent", "ACCEPTED": "customer accepted",
            "BILLING_RECOVERY": "billing recovered",
            "PRODUCT_NOT_FOR_SALE": "product no longer for sale", "SUMMARY": "summary of an extension request",
            "FAILURE": "extension failed for a subscription", "UNREPORTED": "token not yet reported",
            "ACTIVE_TOKEN_REMINDER": "reminder: the token is still active", "CREATED": "token created",
        ],
        // An external purchase custom link token's type (StoreKit lists IN_APP and LINK_OUT too).
        "tokenType": [
            "ACQUISITION": "custom link: acquiring a customer", "SERVICES": "custom link: services",
            "IN_APP": "in-app external purchase", "LINK_OUT": "external purchase link-out",
        ],
        "type": [
            "Auto-Renewable Subscription": "renews until cancelled", "Non-Consumable": "bought once, kept",
            "Consumable": "used up, never an entitlement", "Non-Renewing Subscription": "fixed period, no renewal",
        ],
        "inAppOwnershipType": [
            "PURCHASED": "bought by this customer", "FAMILY_SHARED": "shared through Family Sharing",
        ],
        "environment": environments,
        "receiptType": environments,
        "transactionReason": ["PURCHASE": "customer purchase", "RENEWAL": "automatic renewal"],
        "offerDiscountType": [
            "FREE_TRIAL": "free trial", "PAY_AS_YOU_GO": "pay as you go", "PAY_UP_FRONT": "pay up front",
            "ONE_TIME": "one-time discount",
        ],
        "revocationType": [
            "REFUND_FULL": "full refund", "REFUND_PRORATED": "prorated refund",
            "FAMILY_REVOKE": "Family Sharing access revoked",
        ],
        "consumptionRequestReason": [
            "UNINTENDED_PURCHASE": "unintended purchase", "FULFILLMENT_ISSUE": "fulfillment issue",
            "UNSATISFIED_WITH_PURCHASE": "unsatisfied with purchase", "LEGAL": "legal",
            "OTHER": "other",
        ],
        "originalPlatform": ["iOS": "iOS", "macOS": "macOS", "tvOS": "tvOS", "visionOS": "visionOS"],
        "billingPlanType": ["BILLED_UPFRONT": "billed up front", "MONTHLY": "billed monthly"],
        "renewalBillingPlanType": ["BILLED_UPFRONT": "billed up front", "MONTHLY": "billed monthly"],
    ]
}
