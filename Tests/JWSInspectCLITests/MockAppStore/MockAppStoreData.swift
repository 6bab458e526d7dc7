import Foundation

/// One in-app purchase transaction the mock knows, from which it mints `signedTransactionInfo`
/// (and, for auto-renewable subscriptions, `signedRenewalInfo`) when asked.
///
/// Every transaction belongs to one `customer` (the mock's stand-in for an Apple account):
/// history, subscription statuses, refunds and app transactions take any transaction ID of the
/// customer and answer about all of that customer's transactions.
struct MockTransaction: Sendable {
    /// The product types, as Apple writes them in a transaction's `type` and in the `productType`
    /// filter of Get Transaction History.
    enum ProductType: String, Sendable, CaseIterable {
        case autoRenewable = "Auto-Renewable Subscription"
        case nonRenewing = "Non-Renewing Subscription"
        case consumable = "Consumable"
        case nonConsumable = "Non-Consumable"

        /// The `productType` query value (`AUTO_RENEWABLE`, …).
        var queryValue: String {
            switch self {
            case .autoRenewable: "AUTO_RENEWABLE"
            case .nonRenewing: "NON_RENEWABLE"
            case .consumable: "CONSUMABLE"
            case .nonConsumable: "NON_CONSUMABLE"
            }
        }
    }

    /// Numeric, like Apple's (`2000000000000001`); the mock refuses non-numeric IDs (4000006).
    var transactionId: String
    var originalTransactionId: String
    /// Who bought it; transactions of one customer answer for each other.
    var customer: String = "A"
    var productId: String
    var type: ProductType
    var purchaseDate: Date
    /// Nil: the purchase date of the original transaction (or this one's).
    var originalPurchaseDate: Date?
    var expiresDate: Date?
    /// Numeric string, e.g. "21482312"; auto-renewable subscriptions only.
    var subscriptionGroupIdentifier: String?
    /// `PURCHASED` or `FAMILY_SHARED`.
    var inAppOwnershipType = "PURCHASED"
    /// `PURCHASE` or `RENEWAL`.
    var transactionReason = "PURCHASE"
    /// Set for a refunded or revoked transaction (refund history lists these).
    var revocationDate: Date?
    /// 0 (other) or 1 (an app issue); with `revocationDate`.
    var revocationReason: Int?
    var webOrderLineItemId: String?
    /// Milliunits of `currency` (9990 is 9.99).
    var price: Int64 = 9990
    var currency = "USD"
    var storefront = "USA"
    var storefrontId = "143441"
    /// A UUID string, lowercase.
    var appAccountToken: String?
    /// The Get All Subscription Statuses status to report (1 active, 2 expired, 3 billing retry,
    /// 4 grace period, 5 revoked); nil to derive it from `revocationDate` and `expiresDate`.
    var subscriptionStatus: Int?
    /// The renewal info's `autoRenewStatus` (1 on, 0 off).
    var autoRenewStatus = 1
    /// The renewal info's `gracePeriodExpiresDate`: a billing grace period after a failed renewal.
    var gracePeriodExpiresDate: Date?
}

/// A customer's app transaction (`signedAppTransactionInfo`).
struct MockAppTransaction: Sendable {
    var customer: String
    /// Numeric; Get Transaction Info refuses it (4000048), the other endpoints take it.
    var appTransactionId: String
    var applicationVersion = "1"
    var originalApplicationVersion = "1"
    var originalPurchaseDate: Date
    var originalPlatform = "iOS"
}

/// One App Store Server Notification the mock says it sent, for Get Notification History.
struct MockNotification: Sendable {
    /// An outcome of one send attempt (`SUCCESS`, `TIMED_OUT`, …) and when it happened.
    struct Attempt: Sendable {
        var date: Date
        var result: String
    }

    var notificationType: String
    var subtype: String?
    /// Lowercase UUID.
    var notificationUUID: String
    /// When it was signed and first sent; history filters on it (and it is the JWS' `signedDate`).
    var signedDate: Date
    /// The transaction the notification is about (its `data.signedTransactionInfo`), or nil.
    var transactionId: String?
    /// At least one; a notification whose last attempt is not `SUCCESS` counts as a failure.
    var sendAttempts: [Attempt]
}

extension MockAppStoreServer {
    /// The data a new mock starts with (`seed: true`), with the IDs tests refer to.
    ///
    /// Customer "A" (app transaction `appTransactionA`), seven transactions:
    /// - `subscriptionOriginal`, `subscriptionRenewal1`, `subscriptionRenewal2`:
    ///   com.example.pro.monthly, group 21482312, bought 2025-03-15, renewed 04-15 and 05-15;
    ///   the last expires 2025-06-15 (active at the mock's 2025-06-01).
    /// - `magazine`: com.example.magazine.weekly, group 21500000, 2024-12-01 to 12-08 (expired).
    /// - `coins`: com.example.coins.100, consumable, 2025-02-10.
    /// - `lifetime`: com.example.lifetime, non-consumable, 2025-01-20, refunded 2025-02-01.
    /// - `seasonPass`: com.example.season.2025, non-renewing, 2025-04-01 to 2025-10-01.
    ///
    /// Customer "B" (app transaction `appTransactionB`): `removeAds`, com.example.remove_ads,
    /// non-consumable, family shared, 2025-05-20.
    ///
    /// Orders: `orderA` (subscriptionOriginal, coins), `orderB` (removeAds); `unknownOrder` is none.
    ///
    /// Notifications (oldest first): REFUND (lifetime, 2025-02-01), SUBSCRIBED/INITIAL_BUY
    /// (2025-03-15), DID_RENEW (04-15), DID_RENEW (05-15, TIMED_OUT then SUCCESS) for customer A;
    /// ONE_TIME_CHARGE (removeAds, 2025-05-20, NO_RESPONSE only: a failure) for customer B.
    enum Seed {
        static let subscriptionOriginal = "2000000000000001"
        static let subscriptionRenewal1 = "2000000000000002"
        static let subscriptionRenewal2 = "2000000000000003"
        static let magazine = "2000000000000004"
        static let coins = "2000000000000005"
        static let lifetime = "2000000000000006"
        static let seasonPass = "2000000000000007"
        static let removeAds = "2000000000000101"
        static let appTransactionA = "700000000000001"
        static let appTransactionB = "700000000000002"
        static let orderA = "MQ7VL8L8FG"
        static let orderB = "MR3W5B6C2X"
        static let unknownOrder = "MZZZZZZZZZ"
        /// A well-formed transaction ID the mock does not know (404 4040010).
        static let unknownTransaction = "2999999999999999"
        /// Customer A's transactions.
        static let customerATransactions = [
            subscriptionOriginal, subscriptionRenewal1, subscriptionRenewal2, magazine, coins, lifetime, seasonPass,
        ]

        /// 2025-mm-dd at 00:00:00Z.
        static func day(_ month: Int, _ day: Int, year: Int = 2025) -> Date {
            let components = DateComponents(
                calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "UTC"), year: year,
                month: month, day: day)
            return components.date!
        }

        static var transactions: [MockTransaction] {
            func monthly(_ id: String, _ month: Int, reason: String) -> MockTransaction {
                MockTransaction(
                    transactionId: id, originalTransactionId: subscriptionOriginal,
                    productId: "com.example.pro.monthly",
                    type: .autoRenewable, purchaseDate: day(month, 15), originalPurchaseDate: day(3, 15),
                    expiresDate: day(month + 1, 15), subscriptionGroupIdentifier: "21482312",
                    transactionReason: reason, webOrderLineItemId: "20000000000000\(month)0")
            }
            return [
                monthly(subscriptionOriginal, 3, reason: "PURCHASE"),
                monthly(subscriptionRenewal1, 4, reason: "RENEWAL"),
                monthly(subscriptionRenewal2, 5, reason: "RENEWAL"),
                MockTransaction(
                    transactionId: magazine, originalTransactionId: magazine, productId: "com.example.magazine.weekly",
                    type: .autoRenewable, purchaseDate: day(12, 1, year: 2024), expiresDate: day(12, 8, year: 2024),
                    subscriptionGroupIdentifier: "21500000", webOrderLineItemId: "200000000000999", price: 1990,
                    autoRenewStatus: 0),
                MockTransaction(
                    transactionId: coins, originalTransactionId: coins, productId: "com.example.coins.100",
                    type: .consumable, purchaseDate: day(2, 10), price: 990),
                MockTransaction(
                    transactionId: lifetime, originalTransactionId: lifetime, productId: "com.example.lifetime",
                    type: .nonConsumable, purchaseDate: day(1, 20), revocationDate: day(2, 1), revocationReason: 0,
                    price: 49990),
                MockTransaction(
                    transactionId: seasonPass, originalTransactionId: seasonPass, productId: "com.example.season.2025",
                    type: .nonRenewing, purchaseDate: day(4, 1), expiresDate: day(10, 1), price: 19990),
                MockTransaction(
                    transactionId: removeAds, originalTransactionId: removeAds, customer: "B",
                    productId: "com.example.remove_ads", type: .nonConsumable, purchaseDate: day(5, 20),
                    inAppOwnershipType: "FAMILY_SHARED", price: 2990),
            ]
        }

        static var appTransactions: [MockAppTransaction] {
            [
                MockAppTransaction(
                    customer: "A", appTransactionId: appTransactionA, originalPurchaseDate: day(1, 2, year: 2024)),
                MockAppTransaction(
                    customer: "B", appTransactionId: appTransactionB, originalPurchaseDate: day(5, 1)),
            ]
        }

        static var orders: [String: [String]] {
            [orderA: [subscriptionOriginal, coins], orderB: [removeAds]]
        }

        static var notifications: [MockNotification] {
            func sent(
                _ type: String, _ subtype: String?, _ number: Int, _ date: Date, _ transaction: String,
                _ results: [String] = ["SUCCESS"]
            ) -> MockNotification {
                let attempts = results.enumerated().map { index, result in
                    MockNotification.Attempt(date: date.addingTimeInterval(Double(index) * 3600), result: result)
                }
                return MockNotification(
                    notificationType: type, subtype: subtype,
                    notificationUUID: "00000000-0000-4000-8000-00000000000\(number)", signedDate: date,
                    transactionId: transaction, sendAttempts: attempts)
            }
            return [
                sent("REFUND", nil, 1, day(2, 1), lifetime),
                sent("SUBSCRIBED", "INITIAL_BUY", 2, day(3, 15), subscriptionOriginal),
                sent("DID_RENEW", nil, 3, day(4, 15), subscriptionRenewal1),
                sent("DID_RENEW", nil, 4, day(5, 15), subscriptionRenewal2, ["TIMED_OUT", "SUCCESS"]),
                sent("ONE_TIME_CHARGE", nil, 5, day(5, 20), removeAds, ["NO_RESPONSE"]),
            ]
        }
    }
}
