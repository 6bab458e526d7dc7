/// Everything jwsinspect knows about one payload kind, in one value: its name, how it is
/// recognised, the fields Apple documents for it, where its app identity is read, and the field
/// its signing time falls back to. A new kind is a `PayloadKind` case and its value here
/// (`PayloadSchema.of`); what reads a kind's knowledge reads it from its schema.
///
/// A final class: a token's run reads its kind's schema without copying its arrays.
package final class PayloadSchema: Sendable {
    package let kind: PayloadKind
    /// A readable name ("renewal info").
    package let displayName: String
    /// How a payload of the kind is recognised.
    let recognition: Recognition
    /// The fields Apple documents, in documentation order (tables list them so; others follow,
    /// flagged unknown).
    package let documentedFields: [String]
    /// Where the fields compared against a verifier's configuration are read (`AppIdentity`).
    let identity: Identity
    /// The field whose time certificates are checked at when the payload has no `signedDate`
    /// (Apple uses `signedDate` first, for every kind).
    package let signingTimeField: String

    /// How a kind is recognised.
    enum Recognition: Sendable {
        /// App Store data: alternatives of members, the first alternative whose members are all
        /// present wins (in `recognitionOrder`'s order of kinds).
        case members([[String]])
        /// Developer-signed (no `x5c`): by the `aud` Apple gives the kind.
        case audience(String)
        /// By its envelope (a PKCS#7 receipt, a transaction receipt), or never (`unknown`).
        case envelope
    }

    /// Where the app identity is read.
    enum Identity: Sendable {
        /// From members of the payload (or of the receipt's JSON), by name; nil: the kind has none.
        case members(
            location: String, bundleId: String?, appAppleId: String?, carriesAppAppleId: Bool, environment: String?,
            environmentField: String, bundleIdClaim: Bool = false)
        /// From the first notification body present (`NotificationBody.names`).
        case notificationBody
    }

    init(
        _ kind: PayloadKind, _ displayName: String, recognition: Recognition, documented: [String],
        identity: Identity, signingTimeField: String = "signedDate"
    ) {
        self.kind = kind
        self.displayName = displayName
        self.recognition = recognition
        self.documentedFields = documented
        self.identity = identity
        self.signingTimeField = signingTimeField
    }

    /// The schema of `kind`.
    package static func of(_ kind: PayloadKind) -> PayloadSchema {
        switch kind {
        case .transaction: transaction
        case .renewalInfo: renewalInfo
        case .notification: notification
        case .appTransaction: appTransaction
        case .realtimeRequest: realtimeRequest
        case .apiToken: apiToken
        case .promotionalOffer: promotionalOffer
        case .introductoryOfferEligibility: introductoryOfferEligibility
        case .advancedCommerceRequest: advancedCommerceRequest
        case .receipt: receipt
        case .transactionReceipt: transactionReceipt
        case .realtimeResponse: realtimeResponse
        case .unknown: unknown
        }
    }

    /// The order App Store kinds are tried in: fields that only one kind carries decide, and
    /// Apple's payloads do not name their type.
    static let recognitionOrder: [PayloadKind] = [
        .notification, .appTransaction, .transaction, .realtimeRequest, .renewalInfo,
    ]

    /// Identity read from the payload's `bundleId`, `appAppleId` and `environment`.
    private static func payloadIdentity(carriesBundleId: Bool, carriesAppAppleId: Bool) -> Identity {
        .members(
            location: "payload", bundleId: carriesBundleId ? "bundleId" : nil, appAppleId: "appAppleId",
            carriesAppAppleId: carriesAppAppleId, environment: "environment", environmentField: "environment")
    }

    /// A developer-signed token's identity: the bundle ID is the `bid` claim; no app Apple ID,
    /// no environment.
    private static let claimsIdentity = Identity.members(
        location: "payload", bundleId: "bid", appAppleId: nil, carriesAppAppleId: false, environment: nil,
        environmentField: "environment (developer tokens have none)", bundleIdClaim: true)

    static let transaction = PayloadSchema(
        .transaction, "transaction", recognition: .members([["transactionId"], ["productId", "purchaseDate"]]),
        documented: [
            "transactionId", "originalTransactionId", "webOrderLineItemId", "bundleId", "productId",
            "subscriptionGroupIdentifier", "purchaseDate", "originalPurchaseDate", "expiresDate", "quantity", "type",
            "appAccountToken", "inAppOwnershipType", "signedDate", "revocationReason", "revocationDate",
            "revocationType", "revocationPercentage", "isUpgraded", "offerType", "offerIdentifier",
            "offerDiscountType", "offerPeriod", "environment", "storefront", "storefrontId", "transactionReason",
            "currency", "price", "appTransactionId", "billingPlanType", "advancedCommerceInfo", "commitmentInfo",
            "previousOriginalTransactionId",
        ],
        identity: payloadIdentity(carriesBundleId: true, carriesAppAppleId: false))

    static let renewalInfo = PayloadSchema(
        .renewalInfo, "renewal info",
        recognition: .members([
            ["autoRenewStatus"], ["autoRenewProductId"], ["expirationIntent"], ["isInBillingRetryPeriod"],
            ["priceIncreaseStatus"], ["gracePeriodExpiresDate"], ["renewalDate"], ["renewalPrice"],
        ]),
        documented: [
            "originalTransactionId", "autoRenewProductId", "productId", "autoRenewStatus", "expirationIntent",
            "isInBillingRetryPeriod", "priceIncreaseStatus", "gracePeriodExpiresDate", "offerType", "offerIdentifier",
            "offerDiscountType", "offerPeriod", "signedDate", "environment", "recentSubscriptionStartDate",
            "renewalDate", "currency", "renewalPrice", "eligibleWinBackOfferIds", "appTransactionId",
            "appAccountToken", "renewalBillingPlanType", "advancedCommerceInfo", "commitmentInfo",
        ],
        identity: .members(
            location: "payload", bundleId: nil, appAppleId: nil, carriesAppAppleId: false, environment: "environment",
            environmentField: "environment"))

    static let notification = PayloadSchema(
        .notification, "notification", recognition: .members([["notificationType"]]),
        documented: ["notificationType", "subtype", "notificationUUID", "version", "signedDate"]
            + NotificationBody.names,
        identity: .notificationBody)

    static let appTransaction = PayloadSchema(
        .appTransaction, "app transaction",
        // Not deviceVerification: transactions signed on the device (jwsRepresentation) carry it too.
        recognition: .members([
            ["receiptType"], ["receiptCreationDate"], ["applicationVersion"], ["originalApplicationVersion"],
        ]),
        documented: [
            "receiptType", "appAppleId", "bundleId", "applicationVersion", "versionExternalIdentifier",
            "receiptCreationDate", "originalPurchaseDate", "originalApplicationVersion", "deviceVerification",
            "deviceVerificationNonce", "preorderDate", "appTransactionId", "originalPlatform",
        ],
        identity: .members(
            location: "payload", bundleId: "bundleId", appAppleId: "appAppleId", carriesAppAppleId: true,
            environment: "receiptType", environmentField: "receiptType"),
        signingTimeField: "receiptCreationDate")

    static let realtimeRequest = PayloadSchema(
        .realtimeRequest, "Retention Messaging realtime request",
        recognition: .members([["userLocale"], ["requestIdentifier", "originalTransactionId"]]),
        documented: [
            "originalTransactionId", "appAppleId", "productId", "userLocale", "requestIdentifier", "signedDate",
            "environment",
        ],
        identity: .members(
            location: "payload", bundleId: nil, appAppleId: "appAppleId", carriesAppAppleId: true,
            environment: "environment", environmentField: "environment"))

    static let apiToken = PayloadSchema(
        .apiToken, "App Store Server API token", recognition: .audience("appstoreconnect-v1"),
        documented: ["iss", "iat", "exp", "aud", "bid"], identity: claimsIdentity)

    static let promotionalOffer = PayloadSchema(
        .promotionalOffer, "promotional offer signature", recognition: .audience("promotional-offer"),
        documented: ["iss", "iat", "aud", "bid", "nonce", "productId", "offerIdentifier", "transactionId"],
        identity: claimsIdentity)

    static let introductoryOfferEligibility = PayloadSchema(
        .introductoryOfferEligibility, "introductory offer eligibility token",
        recognition: .audience("introductory-offer-eligibility"),
        documented: ["iss", "iat", "aud", "bid", "nonce", "productId", "allowIntroductoryOffer", "transactionId"],
        identity: claimsIdentity)

    static let advancedCommerceRequest = PayloadSchema(
        .advancedCommerceRequest, "Advanced Commerce in-app request", recognition: .audience("advanced-commerce-api"),
        documented: ["iss", "iat", "aud", "bid", "nonce", "request"], identity: claimsIdentity)

    /// A legacy receipt's JSON (verifyReceipt's names); its environment as field 0 says it.
    static let receipt = PayloadSchema(
        .receipt, "app receipt", recognition: .envelope,
        documented: ReceiptPayload.fieldOrder.map(\.name) + ["in_app"],
        identity: .members(
            location: "receipt", bundleId: "bundle_id", appAppleId: nil, carriesAppAppleId: false,
            environment: "receipt_type", environmentField: "receipt_type"))

    /// A StoreKit 1 transaction receipt's `purchase-info`, in the names StoreKit 1 wrote: the
    /// purchase first, its dates (`…-ms` in milliseconds, rendered; the others as written), then
    /// the app and the device. Its bundle ID is `bid`; its app Apple ID `app-item-id` is text,
    /// never compared (nothing in it is proven).
    static let transactionReceipt = PayloadSchema(
        .transactionReceipt, "StoreKit 1 transaction receipt", recognition: .envelope,
        documented: [
            "transaction-id", "original-transaction-id", "product-id", "quantity", "purchase-date",
            "purchase-date-ms", "purchase-date-pst", "original-purchase-date", "original-purchase-date-ms",
            "original-purchase-date-pst", "expires-date", "expires-date-formatted", "expires-date-formatted-pst",
            "web-order-line-item-id", "is-trial-period", "is-in-intro-offer-period", "cancellation-date",
            "cancellation-date-ms", "cancellation-date-pst", "bid", "bvrs", "app-item-id", "item-id",
            "version-external-identifier", "unique-identifier", "unique-vendor-identifier",
        ],
        identity: .members(
            location: "purchase-info", bundleId: "bid", appAppleId: nil, carriesAppAppleId: false, environment: nil,
            environmentField: "environment"))

    /// A realtime response, a developer's answer to the App Store (Retention Messaging's
    /// `RealtimeResponseBody`): one of its options. Nothing in it names an app or environment.
    static let realtimeResponse = PayloadSchema(
        .realtimeResponse, "realtime response", recognition: .envelope, documented: RealtimeResponseModel.options,
        identity: .members(
            location: "payload", bundleId: nil, appAppleId: nil, carriesAppAppleId: false, environment: nil,
            environmentField: "environment (a realtime response has none)"))

    static let unknown = PayloadSchema(
        .unknown, "unknown payload", recognition: .envelope, documented: [],
        identity: payloadIdentity(carriesBundleId: true, carriesAppAppleId: true))
}
