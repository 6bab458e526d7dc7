import AppStoreTestData
import Foundation
import TestPKI

/// JSON written with its members in a fixed order, as Apple's bodies and payloads are: response
/// bodies and JWS payloads of the mock.
enum MockJSON: Sendable {
    case string(String)
    case integer(Int64)
    case bool(Bool)
    case array([MockJSON])
    case object([(String, MockJSON)])

    /// Compact JSON text (RFC 8259; no insignificant whitespace).
    var text: String {
        switch self {
        case .string(let value): TestPKI.jsonString(value)
        case .integer(let value): String(value)
        case .bool(let value): value ? "true" : "false"
        case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.map { TestPKI.jsonString($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    /// An object of the members whose value is not nil.
    static func members(_ members: [(String, MockJSON?)]) -> MockJSON {
        .object(members.compactMap { name, value in value.map { (name, $0) } })
    }

    /// A date as UNIX milliseconds (Apple's JSON dates).
    static func date(_ date: Date?) -> MockJSON? {
        date.map { .integer(milliseconds($0)) }
    }

    /// `date` in whole UNIX milliseconds (rounded down).
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}

/// Mints the JWS the mock answers with: Apple-shaped payloads (field names and order as in
/// Apple's models), signed by the test chain's leaf with header `{"alg":"ES256","x5c":[leaf,
/// intermediate, root]}` (`AppleShapedChain.sign`). `environment` is the server's, `bundleId` the
/// credentials', `appAppleId` present in Production only (as in Apple's sandbox).
///
/// The payloads' `signedDate` (the app transaction's `receiptCreationDate`) is the time given,
/// which a verifier takes as the time to check the chain at: it must be inside the test leaf's
/// validity (2024-01-01 to 2026-01-01); the mock's 2025-06-01 and the seeded dates are.
struct MockMinter: Sendable {
    var environment: String
    var bundleID: String
    var appAppleID: Int64
    var chain: AppleShapedChain

    /// `appAppleId` in Production, nil in the sandbox.
    private var appAppleIDField: MockJSON? {
        environment == "Production" ? .integer(appAppleID) : nil
    }

    /// A `JWSTransactionDecodedPayload`, signed.
    func transaction(_ transaction: MockTransaction, appTransactionID: String?, signedDate: Date) -> String {
        let payload = MockJSON.members([
            ("transactionId", .string(transaction.transactionId)),
            ("originalTransactionId", .string(transaction.originalTransactionId)),
            ("webOrderLineItemId", transaction.webOrderLineItemId.map(MockJSON.string)),
            ("bundleId", .string(bundleID)),
            ("productId", .string(transaction.productId)),
            ("subscriptionGroupIdentifier", transaction.subscriptionGroupIdentifier.map(MockJSON.string)),
            ("purchaseDate", MockJSON.date(transaction.purchaseDate)),
            ("originalPurchaseDate", MockJSON.date(transaction.originalPurchaseDate ?? transaction.purchaseDate)),
            ("expiresDate", MockJSON.date(transaction.expiresDate)),
            ("quantity", .integer(1)),
            ("type", .string(transaction.type.rawValue)),
            ("appAccountToken", transaction.appAccountToken.map(MockJSON.string)),
            ("inAppOwnershipType", .string(transaction.inAppOwnershipType)),
            ("signedDate", MockJSON.date(signedDate)),
            ("revocationReason", transaction.revocationReason.map { .integer(Int64($0)) }),
            ("revocationDate", MockJSON.date(transaction.revocationDate)),
            ("environment", .string(environment)),
            ("transactionReason", .string(transaction.transactionReason)),
            ("storefront", .string(transaction.storefront)),
            ("storefrontId", .string(transaction.storefrontId)),
            ("price", .integer(transaction.price)),
            ("currency", .string(transaction.currency)),
            ("appTransactionId", appTransactionID.map(MockJSON.string)),
        ])
        return chain.sign(payloadJSON: payload.text)
    }

    /// A `JWSRenewalInfoDecodedPayload` for an auto-renewable subscription's latest transaction, signed.
    func renewalInfo(_ latest: MockTransaction, firstPurchase: Date, appTransactionID: String?, signedDate: Date)
        -> String
    {
        let lapsed = latest.autoRenewStatus == 0 && (latest.expiresDate.map { $0 <= signedDate } ?? false)
        let payload = MockJSON.members([
            ("expirationIntent", lapsed ? .integer(1) : nil),
            ("originalTransactionId", .string(latest.originalTransactionId)),
            ("autoRenewProductId", .string(latest.productId)),
            ("productId", .string(latest.productId)),
            ("autoRenewStatus", .integer(Int64(latest.autoRenewStatus))),
            ("isInBillingRetryPeriod", [3, 4].contains(latest.subscriptionStatus) ? .bool(true) : nil),
            ("gracePeriodExpiresDate", MockJSON.date(latest.gracePeriodExpiresDate)),
            ("signedDate", MockJSON.date(signedDate)),
            ("environment", .string(environment)),
            ("recentSubscriptionStartDate", MockJSON.date(firstPurchase)),
            ("renewalDate", MockJSON.date(latest.expiresDate)),
            ("currency", .string(latest.currency)),
            ("renewalPrice", .integer(latest.price)),
            ("appTransactionId", appTransactionID.map(MockJSON.string)),
        ])
        return chain.sign(payloadJSON: payload.text)
    }

    /// An `AppTransaction` payload (`receiptCreationDate` = `signedDate`), signed.
    func appTransaction(_ app: MockAppTransaction, signedDate: Date) -> String {
        let payload = MockJSON.members([
            ("receiptType", .string(environment)),
            ("appAppleId", appAppleIDField),
            ("bundleId", .string(bundleID)),
            ("applicationVersion", .string(app.applicationVersion)),
            ("receiptCreationDate", MockJSON.date(signedDate)),
            ("originalPurchaseDate", MockJSON.date(app.originalPurchaseDate)),
            ("originalApplicationVersion", .string(app.originalApplicationVersion)),
            ("appTransactionId", .string(app.appTransactionId)),
            ("originalPlatform", .string(app.originalPlatform)),
        ])
        return chain.sign(payloadJSON: payload.text)
    }

    /// A `ResponseBodyV2DecodedPayload` (version 2.0), signed. `data` carries the transaction's
    /// `signedTransactionInfo` and, with `renewalInfo`, `signedRenewalInfo` and `status`.
    func notification(
        type: String, subtype: String?, uuid: String, signedDate: Date, signedTransactionInfo: String?,
        renewal: (signedRenewalInfo: String, status: Int)?
    ) -> String {
        let data = MockJSON.members([
            ("appAppleId", appAppleIDField),
            ("bundleId", .string(bundleID)),
            ("bundleVersion", .string("1")),
            ("environment", .string(environment)),
            ("signedTransactionInfo", signedTransactionInfo.map(MockJSON.string)),
            ("signedRenewalInfo", renewal.map { .string($0.signedRenewalInfo) }),
            ("status", renewal.map { .integer(Int64($0.status)) }),
        ])
        let payload = MockJSON.members([
            ("notificationType", .string(type)),
            ("subtype", subtype.map(MockJSON.string)),
            ("notificationUUID", .string(uuid)),
            ("data", data),
            ("version", .string("2.0")),
            ("signedDate", MockJSON.date(signedDate)),
        ])
        return chain.sign(payloadJSON: payload.text)
    }
}
