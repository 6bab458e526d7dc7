import Foundation

/// What each endpoint answers (after an accepted token). Every JWS is minted at the request, with
/// the mock's now as `signedDate` (a notification's own date for notification history).
///
/// Shared rules: a transaction ID must be 1–19 ASCII digits (else 400 4000006 "Invalid
/// transaction id."); an ID the mock does not know gives 404 4040010 "Transaction id not found.".
/// Endpoints taking "any transaction ID" also take an app transaction ID, and answer about the
/// customer it belongs to. Error bodies are `{"errorCode":N,"errorMessage":"…"}` with
/// `Content-Type: application/json`; `appAppleId` is given in Production only.
extension MockAppStoreServer.Backend {
    typealias Response = MockHTTPServer.Response

    func answer(_ route: Route, _ request: MockHTTPServer.Request, now: Date, contents: inout Contents) -> Response {
        switch route {
        case .transactionInfo(let id): transactionInfo(id, now: now, contents: contents)
        case .appTransactionInfo(let id): appTransactionInfo(id, now: now, contents: contents)
        case .transactionHistory(let id): transactionHistory(id, request, now: now, contents: &contents)
        case .subscriptionStatuses(let id): subscriptionStatuses(id, request, now: now, contents: contents)
        case .orderLookup(let orderID): orderLookup(orderID, now: now, contents: contents)
        case .refundHistory(let id): refundHistory(id, request, now: now, contents: &contents)
        case .notificationHistory: notificationHistory(request, now: now, contents: &contents)
        case .requestTestNotification: requestTestNotification(now: now, contents: &contents)
        case .testNotificationStatus(let token): testNotificationStatus(token, contents: &contents)
        case .massExtensionStatus(let key): massExtensionStatus(key, contents: contents)
        case .retentionImages: Self.json(Self.imageList)
        case .retentionMessages: Self.json(Self.messageList)
        case .defaultMessage(let key):
            contents.defaultMessages[key].map { Self.json(.object([("messageIdentifier", .string($0))])) }
                ?? Self.apiError(404, 4_040_020, "An error that indicates the default message is not found.")
        case .realtimeURL:
            contents.realtimeURL.map { Self.json(.object([("realtimeURL", .string($0))])) }
                ?? Self.apiError(404, 4_040_021, "An error that indicates the realtime URL is not found.")
        case .performanceTestResult(let id):
            contents.performanceTests[id].map { Self.json($0) }
                ?? Self.apiError(404, 4_040_018, "An error that indicates the performance test run is not found.")
        }
    }

    /// Get Image List's and Get Message List's answers, shaped as Apple's own fixtures
    /// (apple/app-store-server-library-python, tests/resources/models/getRetentionImageListResponse.json
    /// at 2c90be43 and getRetentionMessageListResponse.json at 83125811, MIT License): three of
    /// each, one per state. Their identifiers are UUIDs, as Apple's models type them (the
    /// fixtures' `test-image-1` does not parse into Apple's own `GetImageListResponseItem`).
    static let imageList = MockJSON.object([
        (
            "imageIdentifiers",
            .array(
                [
                    ("6b1e2f3a-0000-4000-8000-000000000001", "PENDING"),
                    ("6b1e2f3a-0000-4000-8000-000000000002", "APPROVED"),
                    ("6b1e2f3a-0000-4000-8000-000000000003", "REJECTED"),
                ].map {
                    .object([("imageIdentifier", .string($0.0)), ("imageState", .string($0.1))])
                })
        )
    ])
    static let messageList = MockJSON.object([
        (
            "messageIdentifiers",
            .array(
                [
                    ("3f2b1c0d-0000-4000-8000-000000000001", "APPROVED"),
                    ("3f2b1c0d-0000-4000-8000-000000000002", "PENDING"),
                    ("3f2b1c0d-0000-4000-8000-000000000003", "REJECTED"),
                ].map {
                    .object([("messageIdentifier", .string($0.0)), ("messageState", .string($0.1))])
                })
        )
    ])

    /// GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier} →
    /// `{requestIdentifier, complete}`, with `completeDate`, `succeededCount` and `failedCount`
    /// once complete; a request the mock was not given: 404 4040009.
    private func massExtensionStatus(_ key: String, contents: Contents) -> Response {
        guard let status = contents.massExtensions[key] else {
            return Self.apiError(
                404, 4_040_009,
                "An error that indicates the server didn't find the subscription-renewal-date extension request for the request identifier and product identifier you provided."
            )
        }
        var members: [(String, MockJSON)] = [
            ("requestIdentifier", .string(status.requestIdentifier)), ("complete", .bool(status.completeDate != nil)),
        ]
        if let date = status.completeDate {
            members += [
                ("completeDate", .integer(MockJSON.milliseconds(date))),
                ("succeededCount", .integer(status.succeeded)), ("failedCount", .integer(status.failed)),
            ]
        }
        return Self.json(.object(members))
    }

    static let invalidTransactionID = apiError(400, 4_000_006, "Invalid transaction id.")
    static let transactionNotFound = apiError(404, 4_040_010, "Transaction id not found.")

    /// GET /inApps/v1/transactions/{transactionId} → `{"signedTransactionInfo": JWS}`; an app
    /// transaction ID gives 400 4000048.
    private func transactionInfo(_ id: String, now: Date, contents: Contents) -> Response {
        guard Self.isTransactionID(id) else { return Self.invalidTransactionID }
        if contents.appTransactions.contains(where: { $0.appTransactionId == id }) {
            return Self.apiError(400, 4_000_048, "Invalid request. App transactions aren't supported by this endpoint.")
        }
        guard let transaction = contents.transactions[id] else { return Self.transactionNotFound }
        return Self.json(.object([("signedTransactionInfo", .string(signed(transaction, now, contents)))]))
    }

    /// GET /inApps/v1/transactions/appTransactions/{anyTransactionId} →
    /// `{"signedAppTransactionInfo": JWS}`; a customer without one: 404 4040019.
    private func appTransactionInfo(_ id: String, now: Date, contents: Contents) -> Response {
        guard Self.isTransactionID(id) else { return Self.invalidTransactionID }
        guard let customer = Self.customer(of: id, contents) else { return Self.transactionNotFound }
        guard let app = contents.appTransactions.first(where: { $0.customer == customer }) else {
            return Self.apiError(404, 4_040_019, "App transaction does not exist.")
        }
        return Self.json(.object([("signedAppTransactionInfo", .string(minter.appTransaction(app, signedDate: now)))]))
    }

    /// GET /inApps/v2/history/{anyTransactionId} → HistoryResponse `{revision, hasMore, bundleId,
    /// appAppleId, environment, signedTransactions}`, `pageSize` a page, oldest purchase first
    /// (`sort=DESCENDING`: newest). Filters as Apple's (ANDed; values of one filter ORed):
    /// `startDate` ≤ purchaseDate < `endDate` (ms; else 4000015 / 4000016), `productType`
    /// (4000022), `productId` and `subscriptionGroupIdentifier` (not empty: 4000023, 4000024),
    /// `inAppOwnershipType` (4000026), `revoked` `true`/`false` only (4000030), `sort`
    /// (4000021). Other parameters are ignored. A `revision` the mock did not
    /// issue, or issued for other filters (Apple: repeat them on every page), gives 400 4000005.
    private func transactionHistory(
        _ id: String, _ request: MockHTTPServer.Request, now: Date, contents: inout Contents
    ) -> Response {
        guard Self.isTransactionID(id) else { return Self.invalidTransactionID }
        guard let customer = Self.customer(of: id, contents) else { return Self.transactionNotFound }
        func values(_ name: String) -> [String] { request.queryValues(name) }
        func single(_ name: String, _ allowed: Set<String>) -> String?? {
            let given = values(name)
            guard !given.isEmpty else { return .some(nil) }
            guard given.count == 1, allowed.isEmpty || allowed.contains(given[0]) else { return nil }
            return given[0]
        }
        guard let start = Self.milliseconds(values("startDate")) else {
            return Self.apiError(400, 4_000_015, "Invalid request. The start date is not valid.")
        }
        guard let end = Self.milliseconds(values("endDate")) else {
            return Self.apiError(400, 4_000_016, "Invalid request. The end date is not valid.")
        }
        let types = Set(MockTransaction.ProductType.allCases.map(\.queryValue))
        guard values("productType").allSatisfy(types.contains) else {
            return Self.apiError(400, 4_000_022, "Invalid request. The product type is not valid.")
        }
        guard !values("productId").contains("") else {
            return Self.apiError(400, 4_000_023, "Invalid request. The product id is not valid.")
        }
        guard !values("subscriptionGroupIdentifier").contains("") else {
            return Self.apiError(400, 4_000_024, "Invalid request. The subscription group identifier is not valid.")
        }
        guard let sort = single("sort", ["ASCENDING", "DESCENDING"]) else {
            return Self.apiError(400, 4_000_021, "Invalid request. The sort is not valid.")
        }
        guard let ownership = single("inAppOwnershipType", ["PURCHASED", "FAMILY_SHARED"]) else {
            return Self.apiError(400, 4_000_026, "Invalid request. The in-app ownership type is not valid.")
        }
        guard let revoked = single("revoked", ["true", "false"]) else {
            return Self.apiError(400, 4_000_030, "Invalid request. The revoked parameter is not valid.")
        }
        guard values("revision").count <= 1 else { return Self.invalidRevision }

        var items = Self.transactions(of: customer, contents).filter { transaction in
            let purchase = MockJSON.milliseconds(transaction.purchaseDate)
            return (start.map { purchase >= $0 } ?? true) && (end.map { purchase < $0 } ?? true)
                && (values("productId").isEmpty || values("productId").contains(transaction.productId))
                && (values("productType").isEmpty || values("productType").contains(transaction.type.queryValue))
                && (values("subscriptionGroupIdentifier").isEmpty
                    || values("subscriptionGroupIdentifier").contains(transaction.subscriptionGroupIdentifier ?? ""))
                && (ownership.map { $0 == transaction.inAppOwnershipType } ?? true)
                && (revoked.map { ($0 == "true") == (transaction.revocationDate != nil) } ?? true)
        }
        if sort == "DESCENDING" { items.reverse() }
        let filters = request.query.filter { $0.name != "revision" }.map(\.description).sorted()
        let key = "history|\(customer)|" + filters.joined(separator: "&")
        guard let page = Self.page(items, key: key, token: values("revision").first, contents: &contents) else {
            return Self.invalidRevision
        }
        return Self.json(
            .members([
                ("revision", .string(page.next)),
                ("hasMore", .bool(page.hasMore)),
                ("bundleId", .string(minter.bundleID)),
                ("appAppleId", environment == "Production" ? .integer(minter.appAppleID) : nil),
                ("environment", .string(environment)),
                ("signedTransactions", .array(page.items.map { .string(signed($0, now, contents)) })),
            ]))
    }

    static let invalidRevision = apiError(400, 4_000_005, "Invalid request revision.")

    /// GET /inApps/v1/subscriptions/{anyTransactionId}?status=… → StatusResponse `{environment,
    /// bundleId, appAppleId, data:[{subscriptionGroupIdentifier, lastTransactions:[{status,
    /// originalTransactionId, signedTransactionInfo, signedRenewalInfo}]}]}`: per group (sorted by
    /// identifier), per original transaction, the latest transaction. Status: the transaction's
    /// `subscriptionStatus`, else 5 revoked, 1 active (expires after now), 2 expired. `status`
    /// values (repeatable) filter; other than 1–5: 400 4000031. A customer without
    /// subscriptions gets `data: []`.
    private func subscriptionStatuses(
        _ id: String, _ request: MockHTTPServer.Request, now: Date, contents: Contents
    ) -> Response {
        guard Self.isTransactionID(id) else { return Self.invalidTransactionID }
        guard let customer = Self.customer(of: id, contents) else { return Self.transactionNotFound }
        let wanted = request.queryValues("status")
        guard wanted.allSatisfy({ ["1", "2", "3", "4", "5"].contains($0) }) else {
            return Self.apiError(400, 4_000_031, "Invalid request. The status parameter is not valid.")
        }
        let subscriptions = Self.transactions(of: customer, contents).filter { $0.type == .autoRenewable }
        let groups = Dictionary(grouping: subscriptions) { $0.subscriptionGroupIdentifier ?? "" }
        var data: [MockJSON] = []
        for (group, members) in groups.sorted(by: { $0.key < $1.key }) {
            var last: [MockJSON] = []
            for (original, chain) in Dictionary(grouping: members, by: \.originalTransactionId).sorted(by: {
                $0.key < $1.key
            }) {
                guard let latest = chain.last, let first = chain.first else { continue }
                let status = Self.status(of: latest, at: now)
                guard wanted.isEmpty || wanted.contains(String(status)) else { continue }
                let renewal = minter.renewalInfo(
                    latest, firstPurchase: first.originalPurchaseDate ?? first.purchaseDate,
                    appTransactionID: Self.appTransactionID(of: customer, contents), signedDate: now)
                last.append(
                    .object([
                        ("status", .integer(Int64(status))), ("originalTransactionId", .string(original)),
                        ("signedTransactionInfo", .string(signed(latest, now, contents))),
                        ("signedRenewalInfo", .string(renewal)),
                    ]))
            }
            if !last.isEmpty {
                data.append(
                    .object([("subscriptionGroupIdentifier", .string(group)), ("lastTransactions", .array(last))]))
            }
        }
        return Self.json(
            .members([
                ("environment", .string(environment)), ("bundleId", .string(minter.bundleID)),
                ("appAppleId", environment == "Production" ? .integer(minter.appAppleID) : nil),
                ("data", .array(data)),
            ]))
    }

    /// GET /inApps/v1/lookup/{orderId} → `{"status":0,"signedTransactions":[…]}` for a known order,
    /// `{"status":1}` for an unknown one (200 both: Apple's documented behaviour). An order ID that
    /// is not 1–64 ASCII letters and digits: 400 4000000. In the Sandbox, where Apple has no such
    /// endpoint, 404 with the mock's own code 4040000 (not one of Apple's).
    private func orderLookup(_ orderID: String, now: Date, contents: Contents) -> Response {
        guard environment == "Production" else {
            return Self.apiError(404, 4_040_000, "Order ID lookup is not available in the sandbox environment.")
        }
        guard (1...64).contains(orderID.utf8.count), orderID.utf8.allSatisfy(Self.isASCIIAlphanumeric) else {
            return Self.apiError(400, 4_000_000, "Invalid request.")
        }
        guard let ids = contents.orders[orderID] else { return Self.json(.object([("status", .integer(1))])) }
        let transactions = ids.compactMap { contents.transactions[$0] }
        return Self.json(
            .object([
                ("status", .integer(0)),
                ("signedTransactions", .array(transactions.map { .string(signed($0, now, contents)) })),
            ]))
    }

    /// GET /inApps/v2/refund/lookup/{anyTransactionId}?revision=… → `{signedTransactions, revision,
    /// hasMore}`: the customer's transactions with a `revocationDate`, oldest revocation first,
    /// `pageSize` a page; a revision the mock did not issue (for this customer): 400 4000005.
    private func refundHistory(
        _ id: String, _ request: MockHTTPServer.Request, now: Date, contents: inout Contents
    ) -> Response {
        guard Self.isTransactionID(id) else { return Self.invalidTransactionID }
        guard let customer = Self.customer(of: id, contents) else { return Self.transactionNotFound }
        let revisions = request.queryValues("revision")
        guard revisions.count <= 1 else { return Self.invalidRevision }
        let refunded = Self.transactions(of: customer, contents).filter { $0.revocationDate != nil }
            .sorted { ($0.revocationDate ?? .distantPast) < ($1.revocationDate ?? .distantPast) }
        guard let page = Self.page(refunded, key: "refund|\(customer)", token: revisions.first, contents: &contents)
        else { return Self.invalidRevision }
        return Self.json(
            .object([
                ("signedTransactions", .array(page.items.map { .string(signed($0, now, contents)) })),
                ("revision", .string(page.next)), ("hasMore", .bool(page.hasMore)),
            ]))
    }

    // MARK: - Helpers

    /// A transaction's `signedTransactionInfo`, signed at `now`.
    func signed(_ transaction: MockTransaction, _ now: Date, _ contents: Contents) -> String {
        minter.transaction(
            transaction, appTransactionID: Self.appTransactionID(of: transaction.customer, contents), signedDate: now)
    }

    /// 1–19 ASCII digits.
    static func isTransactionID(_ id: String) -> Bool {
        (1...19).contains(id.utf8.count) && id.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }

    /// The customer a transaction or app transaction ID belongs to.
    static func customer(of id: String, _ contents: Contents) -> String? {
        contents.transactions[id]?.customer ?? contents.appTransactions.first { $0.appTransactionId == id }?.customer
    }

    static func appTransactionID(of customer: String, _ contents: Contents) -> String? {
        contents.appTransactions.first { $0.customer == customer }?.appTransactionId
    }

    /// A customer's transactions, oldest purchase first (ties by transaction ID).
    static func transactions(of customer: String, _ contents: Contents) -> [MockTransaction] {
        contents.transactions.values.filter { $0.customer == customer }.sorted {
            ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId)
        }
    }

    /// Get All Subscription Statuses' status of a subscription's latest transaction at `date`.
    static func status(of transaction: MockTransaction, at date: Date) -> Int {
        if let status = transaction.subscriptionStatus { return status }
        if transaction.revocationDate != nil { return 5 }
        return (transaction.expiresDate.map { $0 > date } ?? false) ? 1 : 2
    }

    /// A query's millisecond date: `.some(nil)` when absent, nil when repeated or not an integer.
    static func milliseconds(_ values: [String]) -> Int64?? {
        guard let value = values.first else { return .some(nil) }
        guard values.count == 1, let number = Int64(value), number >= 0 else { return nil }
        return number
    }

    /// The page of `items` a `revision` or `paginationToken` asks for (nil: the first page), and
    /// a fresh token for the next; nil when the token is unknown or was issued for another `key`.
    static func page<Item>(_ items: [Item], key: String, token: String?, contents: inout Contents)
        -> (items: [Item], next: String, hasMore: Bool)?
    {
        var offset = 0
        if let token {
            guard let cursor = contents.cursors[token], cursor.key == key else { return nil }
            offset = min(cursor.offset, items.count)
        }
        let end = min(offset + contents.pageSize, items.count)
        let next = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        contents.cursors[next] = Cursor(key: key, offset: end)
        return (Array(items[offset..<end]), next, end < items.count)
    }
}
