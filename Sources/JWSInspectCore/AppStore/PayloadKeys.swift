/// The payload members verification reads: those that recognise the payload kind, give
/// the signing time, and carry what expectations compare. Batch verification decodes
/// only these; displays decode everything.
enum PayloadKeys {
    static let essential: [String] = [
        // Recognising the kind (PayloadKind.recognise).
        "notificationType", "receiptType", "receiptCreationDate", "applicationVersion", "originalApplicationVersion",
        "deviceVerification", "transactionId", "productId", "purchaseDate", "userLocale", "requestIdentifier",
        "originalTransactionId", "autoRenewStatus", "autoRenewProductId", "expirationIntent", "isInBillingRetryPeriod",
        "priceIncreaseStatus", "gracePeriodExpiresDate", "renewalDate", "renewalPrice",
        // Signing time, app identity, environment, nested tokens, backend expectations.
        "signedDate", "bundleId", "appAppleId", "environment", "data", "summary", "externalPurchaseToken", "appData",
        "appAccountToken", "deviceVerificationNonce", "revocationDate", "revocationReason", "revocationType",
        "isUpgraded", "type", "expiresDate", "inAppOwnershipType",
    ]
}
