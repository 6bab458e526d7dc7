/// The fields Apple documents for each payload kind, in documentation order,
/// so that tables list them the way Apple's references do. Fields not listed are
/// still shown (after these) and flagged as unknown to this version.
public enum PayloadFields {
    public static func documented(for kind: PayloadKind) -> [String] {
        switch kind {
        case .transaction:
            [
                "transactionId", "originalTransactionId", "webOrderLineItemId", "bundleId", "productId",
                "subscriptionGroupIdentifier", "purchaseDate", "originalPurchaseDate", "expiresDate", "quantity",
                "type",
                "appAccountToken", "inAppOwnershipType", "signedDate", "revocationReason", "revocationDate",
                "revocationType",
                "revocationPercentage", "isUpgraded", "offerType", "offerIdentifier", "offerDiscountType",
                "offerPeriod",
                "environment", "storefront", "storefrontId", "transactionReason", "currency", "price",
                "appTransactionId",
                "billingPlanType", "advancedCommerceInfo", "commitmentInfo",
            ]
        case .renewalInfo:
            [
                "originalTransactionId", "autoRenewProductId", "productId", "autoRenewStatus", "expirationIntent",
                "isInBillingRetryPeriod", "priceIncreaseStatus", "gracePeriodExpiresDate", "offerType",
                "offerIdentifier",
                "offerDiscountType", "offerPeriod", "signedDate", "environment", "recentSubscriptionStartDate",
                "renewalDate",
                "currency", "renewalPrice", "eligibleWinBackOfferIds", "appTransactionId", "appAccountToken",
                "renewalBillingPlanType", "advancedCommerceInfo", "commitmentInfo",
            ]
        case .notification:
            ["notificationType", "subtype", "notificationUUID", "version", "signedDate"] + NotificationBody.names
        case .appTransaction:
            [
                "receiptType", "appAppleId", "bundleId", "applicationVersion", "versionExternalIdentifier",
                "receiptCreationDate", "originalPurchaseDate", "originalApplicationVersion", "deviceVerification",
                "deviceVerificationNonce", "preorderDate", "appTransactionId", "originalPlatform",
            ]
        case .realtimeRequest:
            [
                "originalTransactionId", "appAppleId", "productId", "userLocale", "requestIdentifier", "signedDate",
                "environment",
            ]
        case .apiToken:
            ["iss", "iat", "exp", "aud", "bid"]
        case .promotionalOffer:
            ["iss", "iat", "aud", "bid", "nonce", "productId", "offerIdentifier", "transactionId"]
        case .introductoryOfferEligibility:
            ["iss", "iat", "aud", "bid", "nonce", "productId", "allowIntroductoryOffer", "transactionId"]
        case .advancedCommerceRequest:
            ["iss", "iat", "aud", "bid", "nonce", "request"]
        case .receipt:
            ReceiptPayload.fieldOrder.map(\.name) + ["in_app"]
        case .unknown:
            []
        }
    }

    /// True for fields holding milliseconds since 1970 (every `…Date` field).
    public static func isTimestamp(_ field: String) -> Bool {
        // On UTF-8 bytes: String.hasSuffix compares with Unicode equivalence, which is slow
        // for something asked of every member of every payload.
        field.utf8.count >= 4 && field.utf8.reversed().starts(with: "etaD".utf8)
    }
}
