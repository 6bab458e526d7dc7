internal import AppStoreServerAPI
internal import FoundationEssentials
internal import JWSInspectCore

/// The filters of `fetch history`, `subscriptions`, `notifications` and `test-notification`:
/// each records that it was given, so that a kind refuses the filters of another.
enum FetchFilters {
    static let productTypes = ["AUTO_RENEWABLE", "NON_RENEWABLE", "CONSUMABLE", "NON_CONSUMABLE"]

    static let table: [OptionSpec<FetchOptions>] = [
        filter(
            .history,
            ["--start-date"], .value("DATE"), "history: transactions purchased at or after DATE (or a time ago: 30d)."
        ) {
            options, value throws(UsageError) in
            options.startDate = try FetchOptions.date(value, option: "--start-date")
        },
        filter(.history, ["--end-date"], .value("DATE"), "history: transactions purchased before DATE.") {
            options, value throws(UsageError) in
            options.endDate = try FetchOptions.date(value, option: "--end-date")
        },
        filter(.history, ["--product-id"], .value("ID"), "history: this product only; repeatable (any of them).") {
            options, value throws(UsageError) in
            guard !value.isEmpty else { throw UsageError("--product-id needs a product ID") }
            options.history.productIDs.append(value)
        },
        filter(.history, ["--product-type"], .choice(productTypes), "history: this product type only; repeatable.") {
            options, value in
            options.history.productTypes.append(value)
        },
        filter(
            .history,
            ["--sort"], .choice(["ASCENDING", "DESCENDING"]), "history: by date modified; Apple's default ASCENDING."
        ) {
            options, value in
            options.history.sort = value
        },
        filter(
            .history,
            ["--revoked"], .choice(["true", "false"]),
            "history: only revoked (true) or only unrevoked (false) transactions."
        ) {
            options, value in
            options.history.revoked = value == "true"
        },
        filter(
            .history, ["--subscription-group-id"], .value("ID"), "history: this subscription group only; repeatable."
        ) {
            options, value throws(UsageError) in
            guard !value.isEmpty else { throw UsageError("--subscription-group-id needs an ID") }
            options.history.subscriptionGroupIDs.append(value)
        },
        filter(
            .history,
            ["--ownership-type"], .choice(["PURCHASED", "FAMILY_SHARED"]), "history: purchased or family shared only."
        ) {
            options, value in
            options.history.ownershipType = value
        },
        filter(
            .subscriptions,
            ["--status"], .value("N"),
            "subscriptions: only this status (1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked); repeatable."
        ) { options, value throws(UsageError) in
            options.statuses.append(try ArgumentParser.wholeNumber(value, option: "--status", in: 1...5))
        },
        filter(
            .notifications,
            ["--since"], .value("DATE"),
            "notifications (required): sent at or after DATE, within 180 days (Production) or 30 (Sandbox); or a "
                + "time ago: 7d, 12h."
        ) { options, value throws(UsageError) in
            options.since = try FetchOptions.date(value, option: "--since")
        },
        filter(.notifications, ["--until"], .value("DATE"), "notifications: sent before DATE. Default: now.") {
            options, value throws(UsageError) in
            options.until = try FetchOptions.date(value, option: "--until")
        },
        filter(
            .notifications, ["--transaction-id"], .value("ID"), "notifications: about this customer's transaction only."
        ) {
            options, value throws(UsageError) in
            guard !value.isEmpty, value.utf8.count <= 32, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                throw UsageError("--transaction-id is digits, like 2000000000000010; not '\(Excerpt.of(value))'")
            }
            options.transactionID = value
        },
        filter(
            .notifications,
            ["--only-failures"], .flag,
            "notifications: only those that did not reach your server (or are being retried)."
        ) {
            options, _ in
            options.onlyFailures = true
        },
        filter(
            .notifications,
            ["--notification-type"], .value("TYPE"), "notifications: this type only (SUBSCRIBED, DID_RENEW, REFUND…)."
        ) {
            options, value throws(UsageError) in
            options.notificationType = try word(value, option: "--notification-type")
        },
        filter(
            .notifications,
            ["--notification-subtype"], .value("SUBTYPE"), "notifications: this subtype of --notification-type only."
        ) {
            options, value throws(UsageError) in
            options.notificationSubtype = try word(value, option: "--notification-subtype")
        },
        filter(
            .testNotification,
            ["--wait"], .value("SECONDS"),
            "test-notification: how long to check for Apple's send attempt (0 to 600). Default: 30."
        ) { options, value throws(UsageError) in
            options.wait = Double(try ArgumentParser.wholeNumber(value, option: "--wait", in: 0...600))
        },
    ]

    /// A filter option that records it was given.
    ///
    /// - Parameter kind: the one kind of fetch that takes it (another refuses it, naming it).
    private static func filter(
        _ kind: FetchOptions.Kind, _ names: [String], _ value: OptionValue, _ help: String,
        apply: @escaping @Sendable (inout FetchOptions, String) throws(UsageError) -> Void
    ) -> OptionSpec<FetchOptions> {
        OptionSpec(names, value, group: FetchOptions.filters, help: help) { options, given throws(UsageError) in
            options.given[names[0]] = kind
            try apply(&options, given)
        }
    }

    /// An upper-case identifier such as SUBSCRIBED or AUTO_RENEW_DISABLED.
    private static func word(_ value: String, option: String) throws(UsageError) -> String {
        let upper = value.uppercased()
        guard (1...64).contains(upper.utf8.count),
            upper.utf8.allSatisfy({ ($0 >= 65 && $0 <= 90) || $0 == 95 || ($0 >= 48 && $0 <= 57) })
        else { throw UsageError("\(option) takes a name such as SUBSCRIBED, not '\(Excerpt.of(value))'") }
        return upper
    }
}
