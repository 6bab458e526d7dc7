import Foundation

/// The notification endpoints: Get Notification History, Request a Test Notification and Get Test
/// Notification Status.
extension MockAppStoreServer.Backend {
    /// The notification types Apple's `notificationType` takes (NotificationTypeV2).
    static let notificationTypes: Set<String> = [
        "SUBSCRIBED", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS", "OFFER_REDEEMED", "DID_RENEW", "EXPIRED",
        "DID_FAIL_TO_RENEW", "GRACE_PERIOD_EXPIRED", "PRICE_INCREASE", "REFUND", "REFUND_DECLINED",
        "CONSUMPTION_REQUEST", "RENEWAL_EXTENDED", "REVOKE", "TEST", "RENEWAL_EXTENSION", "REFUND_REVERSED",
        "EXTERNAL_PURCHASE_TOKEN", "ONE_TIME_CHARGE", "RESCIND_CONSENT", "METADATA_UPDATE", "MIGRATION", "PRICE_CHANGE",
    ]

    /// POST /inApps/v1/notifications/history?paginationToken=… with a JSON body `{startDate,
    /// endDate, notificationType?, notificationSubtype?, transactionId?, onlyFailures?}` →
    /// `{paginationToken, hasMore, notificationHistory:[{signedPayload, sendAttempts:[{attemptDate,
    /// sendAttemptResult}]}]}`, `pageSize` a page, oldest first; `paginationToken` only when
    /// `hasMore` (as Apple's library documents).
    ///
    /// Checked like Apple: `Content-Type` application/json (else 415, plain text: the mock's
    /// choice); a body that is not a JSON object: 400 4000000; `startDate`/`endDate` required
    /// integers (4000015 / 4000016); `startDate` < `endDate` (4000013); `startDate` within 180
    /// days (Production) or 30 days (Sandbox) of now (4000012); `notificationType` one of Apple's,
    /// a subtype only with a type (4000018); `transactionId` with `notificationType` (4000019);
    /// `transactionId` numeric (4000006) and known (404 4040010); `onlyFailures` a boolean
    /// (4000000). A `paginationToken` the mock did not issue for this same body: 400 4000014.
    ///
    /// Included: notifications with `startDate` ≤ signedDate < `endDate` (a future `endDate` is
    /// now), of the type/subtype asked, about the customer of `transactionId`, and with
    /// `onlyFailures` only those without a `SUCCESS` attempt.
    func notificationHistory(_ request: MockHTTPServer.Request, now: Date, contents: inout Contents) -> Response {
        let mediaType = request.header("Content-Type")?.split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard mediaType == "application/json" else { return Self.text(415, "Content-Type must be application/json") }
        guard let body = MockTokenCheck.object(request.body) else {
            return Self.apiError(400, 4_000_000, "Invalid request. The body is not a JSON object.")
        }
        guard let start = Self.integer(body["startDate"]) else {
            return Self.apiError(400, 4_000_015, "Invalid request. The start date is not valid.")
        }
        guard let end = Self.integer(body["endDate"]) else {
            return Self.apiError(400, 4_000_016, "Invalid request. The end date is not valid.")
        }
        guard start < end else {
            return Self.apiError(400, 4_000_013, "Invalid request. The start date is not before the end date.")
        }
        let window: Double = environment == "Production" ? 180 : 30
        guard Double(start) >= (now.timeIntervalSince1970 - window * 86_400) * 1000 else {
            return Self.apiError(400, 4_000_012, "Invalid request. The start date is too far in the past.")
        }
        let type = body["notificationType"]
        let subtype = body["notificationSubtype"]
        guard type == nil || (type as? String).map(Self.notificationTypes.contains) == true,
            subtype == nil || (type != nil && subtype is String)
        else { return Self.apiError(400, 4_000_018, "Invalid request. The notification type is not valid.") }
        var customer: String?
        if let transactionID = body["transactionId"] {
            guard type == nil else {
                return Self.apiError(
                    400, 4_000_019, "Invalid request. Only one of notificationType or transactionId may be given.")
            }
            guard let id = transactionID as? String, Self.isTransactionID(id) else { return Self.invalidTransactionID }
            guard let owner = Self.customer(of: id, contents) else { return Self.transactionNotFound }
            customer = owner
        }
        let onlyFailures = body["onlyFailures"]
        guard onlyFailures == nil || (onlyFailures as? NSNumber).map(MockTokenCheck.isBoolean) == true else {
            return Self.apiError(400, 4_000_000, "Invalid request. onlyFailures is not a boolean.")
        }
        let failuresOnly = (onlyFailures as? NSNumber)?.boolValue ?? false

        let until = min(end, MockJSON.milliseconds(now))
        let included = contents.notifications.filter { notification in
            let sent = MockJSON.milliseconds(notification.signedDate)
            let owner = notification.transactionId.flatMap { contents.transactions[$0]?.customer }
            return sent >= start && sent < until
                && (type.map { ($0 as? String) == notification.notificationType } ?? true)
                && (subtype.map { ($0 as? String) == notification.subtype } ?? true)
                && (customer.map { $0 == owner } ?? true)
                && (!failuresOnly || !notification.sendAttempts.contains { $0.result == "SUCCESS" })
        }
        let tokens = request.queryValues("paginationToken")
        let invalidToken = Self.apiError(400, 4_000_014, "Invalid request. The pagination token is invalid.")
        guard tokens.count <= 1,
            let canonical = try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]),
            let page = Self.page(
                included, key: "notifications|" + String(decoding: canonical, as: UTF8.self), token: tokens.first,
                contents: &contents)
        else { return invalidToken }
        let items = page.items.map { notification in
            MockJSON.object([
                ("signedPayload", .string(signedPayload(notification, contents))),
                (
                    "sendAttempts",
                    .array(
                        notification.sendAttempts.map {
                            .object([
                                ("attemptDate", .integer(MockJSON.milliseconds($0.date))),
                                ("sendAttemptResult", .string($0.result)),
                            ])
                        })
                ),
            ])
        }
        return Self.json(
            .members([
                ("paginationToken", page.hasMore ? .string(page.next) : nil), ("hasMore", .bool(page.hasMore)),
                ("notificationHistory", .array(items)),
            ]))
    }

    /// POST /inApps/v1/notifications/test → `{"testNotificationToken": "<uuid>_<ms>"}`; the TEST
    /// notification also joins the notification history (sent now, `SUCCESS`).
    func requestTestNotification(now: Date, contents: inout Contents) -> Response {
        let uuid = UUID().uuidString.lowercased()
        let token = "\(uuid)_\(MockJSON.milliseconds(now))"
        contents.testNotifications[token] = TestNotification(uuid: uuid, requestedAt: now)
        contents.notifications.append(
            MockNotification(
                notificationType: "TEST", notificationUUID: uuid, signedDate: now, transactionId: nil,
                sendAttempts: [.init(date: now, result: "SUCCESS")]))
        return Self.json(.object([("testNotificationToken", .string(token))]))
    }

    /// GET /inApps/v1/notifications/test/{token}: the first `testNotificationPendingPolls` calls
    /// for a token, and any call for a token the mock did not issue, give 404 4040008; then
    /// `{"signedPayload": JWS of the TEST notification, "sendAttempts":[{attemptDate,
    /// "SUCCESS"}]}`. A token not shaped `<uuid>_<digits>`: 400 4000020.
    func testNotificationStatus(_ token: String, contents: inout Contents) -> Response {
        let parts = token.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, UUID(uuidString: String(parts[0])) != nil, !parts[1].isEmpty,
            parts[1].utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
        else { return Self.apiError(400, 4_000_020, "Invalid request. The test notification token is invalid.") }
        let notFound = Self.apiError(404, 4_040_008, "Test notification not found.")
        guard var test = contents.testNotifications[token] else { return notFound }
        test.polls += 1
        contents.testNotifications[token] = test
        guard test.polls > contents.testNotificationPendingPolls else { return notFound }
        let payload = minter.notification(
            type: "TEST", subtype: nil, uuid: test.uuid, signedDate: test.requestedAt, signedTransactionInfo: nil,
            renewal: nil)
        let attempt = MockJSON.object([
            ("attemptDate", .integer(MockJSON.milliseconds(test.requestedAt))),
            ("sendAttemptResult", .string("SUCCESS")),
        ])
        return Self.json(.object([("signedPayload", .string(payload)), ("sendAttempts", .array([attempt]))]))
    }

    /// A history notification's `signedPayload`, signed at its own date, with the transaction
    /// (and renewal info and status, for a subscription) as they were then.
    private func signedPayload(_ notification: MockNotification, _ contents: Contents) -> String {
        let date = notification.signedDate
        let transaction = notification.transactionId.flatMap { contents.transactions[$0] }
        let renewal = transaction.flatMap { transaction -> (String, Int)? in
            guard transaction.type == .autoRenewable else { return nil }
            let first = contents.transactions[transaction.originalTransactionId] ?? transaction
            let info = minter.renewalInfo(
                transaction, firstPurchase: first.purchaseDate,
                appTransactionID: Self.appTransactionID(of: transaction.customer, contents), signedDate: date)
            return (info, Self.status(of: transaction, at: date))
        }
        return minter.notification(
            type: notification.notificationType, subtype: notification.subtype, uuid: notification.notificationUUID,
            signedDate: date, signedTransactionInfo: transaction.map { signed($0, date, contents) },
            renewal: renewal.map { (signedRenewalInfo: $0.0, status: $0.1) })
    }

    /// A JSON integer (not a boolean, not fractional), or nil.
    static func integer(_ value: Any?) -> Int64? {
        guard let number = MockTokenCheck.number(value), number == number.rounded(), abs(number) < 1e15 else {
            return nil
        }
        return Int64(number)
    }
}
