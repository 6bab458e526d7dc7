/// The payload members verification reads. Batch verification decodes only these
/// (each decoded member costs about a microsecond in `JSONDecoder`); displays decode
/// everything, on demand.
struct PayloadKeys: Sendable, Equatable {
    /// Members whose values are decoded.
    let values: [String]
    /// Members only tested for presence (recognising the payload kind); they are
    /// recorded as `null` in `CompactJWS.DecodedSegment.essentials`.
    let presence: [String]

    /// What `PayloadKind.recognise` looks at.
    static let recognition = [
        "notificationType", "receiptType", "receiptCreationDate", "applicationVersion", "originalApplicationVersion",
        "deviceVerification", "transactionId", "productId", "purchaseDate", "userLocale", "requestIdentifier",
        "originalTransactionId", "autoRenewStatus", "autoRenewProductId", "expirationIntent", "isInBillingRetryPeriod",
        "priceIncreaseStatus", "gracePeriodExpiresDate", "renewalDate", "renewalPrice",
    ]

    /// The members needed under `options`: always the signing time, the environment
    /// fields (Xcode recognition) and a notification's bodies (nested tokens); the compared
    /// fields only when an expectation asks for them.
    init(for options: VerificationOptions) {
        var values = ["signedDate", "receiptCreationDate", "environment", "receiptType",
                      "data", "summary", "externalPurchaseToken", "appData"]
        if options.expectedBundleId != nil || options.expectedAppAppleId != nil || options.expectedEnvironment != nil {
            values += ["bundleId", "appAppleId"]
        }
        if options.expectedAccountToken != nil { values.append("appAccountToken") }
        if options.deviceVerificationID != nil { values += ["deviceVerification", "deviceVerificationNonce"] }
        if options.requireActive {
            values += ["revocationDate", "revocationReason", "revocationType", "isUpgraded", "type", "expiresDate"]
        }
        self.values = values
        self.presence = Self.recognition.filter { !values.contains($0) }
    }

    /// Everything either list names.
    static let all = PayloadKeys(values: recognition + ["signedDate", "environment", "data", "summary",
        "externalPurchaseToken", "appData", "bundleId", "appAppleId", "appAccountToken", "deviceVerificationNonce",
        "revocationDate", "revocationReason", "revocationType", "isUpgraded", "type", "expiresDate"], presence: [])

    private init(values: [String], presence: [String]) {
        self.values = values
        self.presence = presence
    }
}
