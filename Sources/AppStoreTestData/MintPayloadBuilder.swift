internal import FoundationEssentials
internal import JWSInspectCore

/// What a notification type says about the purchase behind it, so that the transaction and
/// renewal info minted for it agree with it (an expired subscription, a refund, a renewal…).
struct MintScenario {
    var consumable = false
    /// A later transaction of the subscription: its own transactionId, an earlier originalPurchaseDate.
    var laterTransaction = false
    var transactionReason = "PURCHASE"
    var expired = false
    var autoRenew = true
    var expirationIntent: Int64?
    var billingRetry = false
    var gracePeriod = false
    var priceIncreaseStatus: Int64?
    /// revocationType, for a refund or a Family Sharing revocation.
    var revocationType: String?

    init(notificationType: String, subtype given: String?) {
        let subtype = given ?? MintPayloads.defaultSubtype(notificationType: notificationType)
        switch notificationType {
        case "ONE_TIME_CHARGE", "CONSUMPTION_REQUEST": consumable = true
        case "SUBSCRIBED": laterTransaction = subtype == "RESUBSCRIBE"
        case "DID_RENEW", "RENEWAL_EXTENDED":
            (laterTransaction, transactionReason) = (true, "RENEWAL")
        case "EXPIRED":
            (expired, autoRenew) = (true, false)
            let intents: [String: Int64] = ["BILLING_RETRY": 2, "PRICE_INCREASE": 3, "PRODUCT_NOT_FOR_SALE": 4]
            expirationIntent = subtype.flatMap { intents[$0] } ?? 1
        case "DID_FAIL_TO_RENEW", "GRACE_PERIOD_EXPIRED":
            (expired, billingRetry, expirationIntent) = (true, true, 2)
            gracePeriod = notificationType == "DID_FAIL_TO_RENEW" && subtype == "GRACE_PERIOD"
        case "DID_CHANGE_RENEWAL_STATUS": autoRenew = subtype != "AUTO_RENEW_DISABLED"
        case "PRICE_INCREASE": priceIncreaseStatus = subtype == "ACCEPTED" ? 1 : 0
        case "REFUND": (revocationType, autoRenew) = ("REFUND_FULL", false)
        case "REVOKE": (revocationType, autoRenew) = ("FAMILY_REVOKE", false)
        default: break
        }
    }

    /// `data.status`: nil for a one-time purchase.
    var status: Int64? {
        if consumable { return nil }
        if revocationType != nil { return 5 }
        if gracePeriod { return 4 }
        if billingRetry { return 3 }
        return expired ? 2 : 1
    }
}

/// Builds the payloads of `MintPayloads.payload`, fields in `PayloadFields` order.
struct MintPayloadBuilder {
    static let appAppleID: Int64 = 1_234_567_890
    static let originalTransactionID = "2000000812345678"
    static let laterTransactionID = "2000000834567890"
    static let webOrderLineItemID = "2000000098765432"
    static let appTransactionID = "704289572311811469"
    static let subscriptionGroupID = "21345678"
    static let appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
    /// The device's `AppStore.deviceVerificationID` that `deviceVerification` is computed with.
    static let deviceVerificationID = "3b3a6e4f-9d2c-4a8e-b5f1-2c7d8e9f0a1b"
    static let day: Int64 = 86_400_000

    let context: MintContext
    let scenario: MintScenario
    let now: Int64
    let purchase: Int64
    let expires: Int64
    let originalPurchase: Int64

    init(context: MintContext) {
        self.context = context
        scenario = MintScenario(notificationType: context.notificationType, subtype: context.subtype)
        now = Self.milliseconds(context.now)
        let second = now - ((now % 1000) + 1000) % 1000  // floored to the second, as Apple's purchase dates are
        if scenario.expired {
            expires = second - Self.day
            purchase = Self.adding(months: -1, to: expires)
        } else {
            purchase = second - 60_000
            expires = Self.adding(months: 1, to: purchase)
        }
        originalPurchase = scenario.laterTransaction ? Self.adding(months: -3, to: purchase) : purchase
    }

    var productID: String { "\(context.bundleID).\(scenario.consumable ? "coins.100" : "premium.monthly")" }
    var transactionID: String { scenario.laterTransaction ? Self.laterTransactionID : Self.originalTransactionID }
    var env: OrderedJSON { .string(context.environment) }

    func transaction() -> OrderedJSON.Object {
        let subscription = !scenario.consumable
        let revoked = scenario.revocationType != nil
        var object = OrderedJSON.Object()
        object.add("transactionId", .string(transactionID))
        object.add("originalTransactionId", .string(Self.originalTransactionID))
        object.add("webOrderLineItemId", subscription ? .string(Self.webOrderLineItemID) : nil)
        object.add("bundleId", .string(context.bundleID))
        object.add("productId", .string(productID))
        object.add("subscriptionGroupIdentifier", subscription ? .string(Self.subscriptionGroupID) : nil)
        object.add("purchaseDate", .integer(purchase))
        object.add("originalPurchaseDate", .integer(originalPurchase))
        object.add("expiresDate", subscription ? .integer(expires) : nil)
        object.add("quantity", .integer(1))
        object.add("type", .string(subscription ? "Auto-Renewable Subscription" : "Consumable"))
        object.add("appAccountToken", .string(Self.appAccountToken))
        let family = scenario.revocationType == "FAMILY_REVOKE"
        object.add("inAppOwnershipType", .string(family ? "FAMILY_SHARED" : "PURCHASED"))
        object.add("signedDate", .integer(now))
        object.add("revocationReason", revoked ? .integer(0) : nil)
        object.add("revocationDate", revoked ? .integer(now - 60_000) : nil)
        object.add("revocationType", scenario.revocationType.map(OrderedJSON.string))
        object.add("revocationPercentage", scenario.revocationType == "REFUND_FULL" ? .integer(100_000) : nil)
        object.add("environment", env)
        object.add("storefront", .string("USA"))
        object.add("storefrontId", .string("143441"))
        object.add("transactionReason", .string(scenario.transactionReason))
        object.add("currency", .string("USD"))
        object.add("price", .integer(scenario.consumable ? 990 : 9990))
        object.add("appTransactionId", .string(Self.appTransactionID))
        return object
    }

    func renewalInfo() -> OrderedJSON.Object {
        var object = OrderedJSON.Object()
        object.add("originalTransactionId", .string(Self.originalTransactionID))
        object.add("autoRenewProductId", .string(productID))
        object.add("productId", .string(productID))
        object.add("autoRenewStatus", .integer(scenario.autoRenew ? 1 : 0))
        object.add("expirationIntent", scenario.expirationIntent.map(OrderedJSON.integer))
        object.add("isInBillingRetryPeriod", .bool(scenario.billingRetry))
        object.add("priceIncreaseStatus", scenario.priceIncreaseStatus.map(OrderedJSON.integer))
        object.add("gracePeriodExpiresDate", scenario.gracePeriod ? .integer(expires + 16 * Self.day) : nil)
        object.add("signedDate", .integer(now))
        object.add("environment", env)
        let start = scenario.transactionReason == "RENEWAL" ? originalPurchase : purchase
        object.add("recentSubscriptionStartDate", .integer(start))
        object.add("renewalDate", .integer(expires))
        object.add("currency", .string("USD"))
        object.add("renewalPrice", .integer(scenario.priceIncreaseStatus == nil ? 9990 : 12990))
        object.add("appTransactionId", .string(Self.appTransactionID))
        object.add("appAccountToken", .string(Self.appAccountToken))
        return object
    }

    func notification() -> OrderedJSON.Object {
        let type = context.notificationType
        var object = OrderedJSON.Object()
        object.add("notificationType", .string(type))
        object.add("subtype", context.effectiveSubtype.map(OrderedJSON.string))
        object.add("notificationUUID", .string(Self.uuid()))
        object.add("version", .string("2.0"))
        object.add("signedDate", .integer(now))
        let app: OrderedJSON.Members = [
            ("appAppleId", .integer(Self.appAppleID)), ("bundleId", .string(context.bundleID)),
        ]
        switch MintPayloads.body(notificationType: type, subtype: context.subtype) {
        case "summary":
            object.add(
                "summary",
                .object(
                    OrderedJSON.Object(
                        [("environment", env)] + app + [
                            ("productId", .string(productID)), ("requestIdentifier", .string(Self.uuid())),
                            ("storefrontCountryCodes", .array([.string("USA")])), ("succeededCount", .integer(1)),
                            ("failedCount", .integer(0)),
                        ])))
        case "externalPurchaseToken":
            let prefix = context.environment == "Production" ? "" : "SANDBOX_"
            let token: OrderedJSON.Members = [
                ("externalPurchaseId", .string(prefix + Self.uuid())), ("tokenCreationDate", .integer(purchase)),
            ]
            object.add("externalPurchaseToken", .object(OrderedJSON.Object(token + app)))
        case "appData":
            object.add("appData", .object(OrderedJSON.Object(app + [("environment", env)])))
        default:
            var data = OrderedJSON.Object(app + [("bundleVersion", .string("42")), ("environment", env)])
            data.add("status", type == "TEST" ? nil : scenario.status.map(OrderedJSON.integer))
            data.add("consumptionRequestReason", type == "CONSUMPTION_REQUEST" ? .string("UNINTENDED_PURCHASE") : nil)
            object.add("data", .object(data))
        }
        return object
    }

    func appTransaction() -> OrderedJSON.Object {
        let nonce = Self.uuid()
        var object = OrderedJSON.Object()
        object.add("receiptType", env)
        object.add("appAppleId", .integer(Self.appAppleID))
        object.add("bundleId", .string(context.bundleID))
        object.add("applicationVersion", .string("42"))
        object.add("versionExternalIdentifier", .integer(context.environment == "Production" ? 872_349_102 : 0))
        object.add("receiptCreationDate", .integer(now))
        object.add("originalPurchaseDate", .integer(Self.adding(months: -6, to: originalPurchase)))
        object.add("originalApplicationVersion", .string("1.0"))
        object.add("deviceVerification", .string(Self.deviceVerification(nonce: nonce)))
        object.add("deviceVerificationNonce", .string(nonce))
        object.add("appTransactionId", .string(Self.appTransactionID))
        object.add("originalPlatform", .string("iOS"))
        return object
    }

    func realtimeRequest() -> OrderedJSON.Object {
        var object = OrderedJSON.Object()
        object.add("originalTransactionId", .string(Self.originalTransactionID))
        object.add("appAppleId", .integer(Self.appAppleID))
        object.add("productId", .string(productID))
        object.add("userLocale", .string("en-US"))
        object.add("requestIdentifier", .string(Self.uuid()))
        object.add("signedDate", .integer(now))
        object.add("environment", env)
        return object
    }

    /// A random UUID (version 4), lowercase as Apple writes them.
    static func uuid() -> String { UUID().uuidString.lowercased() }

    /// Milliseconds since 1970, floored, clamped to ±8.64e15 (the range of JavaScript dates).
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard value.isFinite else { return 0 }
        return Int64(min(max(value, -8.64e15), 8.64e15))
    }

    /// `ms` moved by calendar months (UTC); by 30-day months where the calendar cannot.
    static func adding(months: Int, to ms: Int64) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let date = Date(timeIntervalSince1970: Double(ms) / 1000)
        guard let moved = calendar.date(byAdding: .month, value: months, to: date) else {
            return ms + Int64(months) * 30 * day
        }
        return milliseconds(moved)
    }

    /// Base64 of SHA-384 over lowercase(nonce) + lowercase(deviceVerificationID), as Apple computes it.
    static func deviceVerification(nonce: String) -> String {
        let input = Array((nonce.lowercased() + deviceVerificationID.lowercased()).utf8)
        return Data(Digest.sha384(input)).base64EncodedString()
    }
}
