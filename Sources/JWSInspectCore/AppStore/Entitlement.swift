package import FoundationEssentials

/// What a payload means for a customer's access, in plain language, per Apple's rules:
/// a revoked transaction grants nothing; a subscription grants access until `expiresDate`;
/// an upgraded one grants nothing; consumables are never entitlements.
package enum Entitlement {
    /// Whether something grants access at a moment, and why: the one model's answer
    /// (`decide(_:at:style:)`), in the words every report uses.
    package struct Access: Sendable, Equatable {
        /// True only in the `active` and `billingGracePeriod` states; nil when the data is not
        /// proven, or the rule leaves the decision to the app; false otherwise.
        package let grantsAccess: Bool?
        /// The words every report uses for the decision: the transaction's summary, a
        /// notification's summary and the `active` check (`--require-active`) all say
        /// "grants access until 2026-03-01T00:00:00.000Z" or "grants no access: expired
        /// 2025-10-02T07:09:07.000Z"; for a payload that cannot say, why it cannot.
        package let explanation: String
        /// When an expiring grant ends (nil when access does not expire or is not granted).
        package let until: Date?
        /// Why, in a few words and whole days, for a one-line verdict ("expired 2025-10-02").
        package let brief: String
        /// The state the model put the purchase in.
        package let state: State
        /// The signed items that decided, by their path in the record ("payload" for the
        /// token itself, "data.signedRenewalInfo", "data.status").
        package let decidedBy: [String]

        package init(
            grantsAccess: Bool?, explanation: String, until: Date?, brief: String, state: State,
            decidedBy: [String] = []
        ) {
            self.grantsAccess = grantsAccess
            self.explanation = explanation
            self.until = until
            self.brief = brief
            self.state = state
            self.decidedBy = decidedBy
        }

        /// The decision in a few words, for a one-line verdict: "grants access until
        /// 2026-03-01", "grants no access (expired 2025-10-02)", "no access decision
        /// (not verified)", "not an entitlement (app transaction)".
        package var briefPhrase: String { briefPhrase(.utc) }

        /// `briefPhrase` with the day of `until` in `style`'s zone.
        package func briefPhrase(_ style: DateStyle) -> String {
            switch (grantsAccess, state) {
            case (true?, .billingGracePeriod):
                until.map { "grants access until \(style.day($0)) (billing grace period)" }
                    ?? "grants access (\(brief))"
            case (true?, _): until.map { "grants access until \(style.day($0))" } ?? "grants access (\(brief))"
            case (false?, .notAnEntitlement): "not an entitlement (\(brief))"
            case (false?, .wrongCustomer): "wrong customer (\(brief))"
            case (false?, _): "grants no access (\(brief))"
            case (nil, _): "no access decision (\(brief))"
            }
        }

        /// The same decision, with the signed items that decided it.
        func decided(by paths: [String]) -> Access {
            Access(
                grantsAccess: grantsAccess, explanation: explanation, until: until, brief: brief, state: state,
                decidedBy: paths)
        }

        static func granted(_ reason: String, brief: String, until: Date? = nil, state: State = .active) -> Access {
            Access(grantsAccess: true, explanation: "grants access" + reason, until: until, brief: brief, state: state)
        }

        static func denied(_ reason: String, brief: String, state: State) -> Access {
            Access(
                grantsAccess: false, explanation: "grants no access: " + reason, until: nil, brief: brief, state: state)
        }

        static func undecided(_ reason: String, brief: String) -> Access {
            Access(grantsAccess: nil, explanation: reason, until: nil, brief: brief, state: .undecided)
        }

        /// Not an entitlement at all: `what` says what the payload proves instead.
        static func notAnEntitlement(_ what: String, brief: String) -> Access {
            Access(
                grantsAccess: false, explanation: "not an entitlement: " + what, until: nil, brief: brief,
                state: .notAnEntitlement)
        }

        /// No decision, because the data it would be made on is not proven: `why` says so ("not
        /// proven authentic (invalid-signature)"), and for data that was not checked at all the
        /// explanation adds what the payload would mean if authentic ("would grant access
        /// until …"), never as a grant.
        static func withheld(_ why: String, brief: String, wouldBe decided: Access? = nil) -> Access {
            var text = "no access decision for data \(why)"
            var brief = brief
            if let decided, decided.grantsAccess != nil, decided.explanation.hasPrefix("grants") {
                text += "; if authentic, it would grant" + decided.explanation.dropFirst("grants".count)
                brief += "; if authentic: \(decided.grantsAccess == true ? "" : "no access, ")\(decided.brief)"
            }
            return Access(
                grantsAccess: nil, explanation: text, until: nil, brief: brief, state: .undecided,
                decidedBy: decided?.decidedBy ?? [])
        }
    }

    /// A member's value as messages quote it (at most about 60 characters).
    static func shown(_ value: JSONValue) -> String {
        if case .string(let text) = value { return "\"\(Excerpt.of(text))\"" }
        return Excerpt.of(PayloadDisplay.rawText(value))
    }

    static func revocationWhy(_ payload: [String: JSONValue]) -> String {
        var reasons: [String] = []
        if let reason = payload["revocationReason"],
            case .known(let text) = FieldMeanings.meaning(field: "revocationReason", value: reason)
        {
            reasons.append(text)
        }
        if let type = payload["revocationType"],
            case .known(let text) = FieldMeanings.meaning(field: "revocationType", value: type)
        {
            reasons.append(text)
        }
        return reasons.isEmpty ? "" : " (" + reasons.joined(separator: "; ") + ")"
    }

    // MARK: Summary

    /// A transaction's `type` as a summary's sentence starts.
    private static let transactionTypes = [
        "Auto-Renewable Subscription": "Auto-renewable subscription", "Non-Consumable": "Non-consumable",
        "Consumable": "Consumable", "Non-Renewing Subscription": "Non-renewing subscription",
    ]

    /// One plain-language line for support staff, e.g. "Auto-renewable subscription com.example.pro,
    /// purchased 2026-03-01; grants no access: revoked 2026-03-04 (refunded: issue in the app)."
    ///
    /// - Parameters:
    ///   - now: the moment access is decided at, and dates are read as past or future from.
    ///   - access: for a transaction, the decision to word (nil: decided from `payload` at
    ///     `now`); an inspection passes its own, withheld when the data is not proven.
    ///   - nested: for a notification, the kind and access of the nested token that decides
    ///     access (its transaction), as `--require-active` decides it.
    ///   - style: how its dates read (UTC by default).
    package static func summary(
        kind: PayloadKind,
        payload: [String: JSONValue],
        now: Date,
        access: Access? = nil,
        nested: (kind: PayloadKind, access: Access)? = nil,
        style: DateStyle = .utc
    ) -> String {
        func day(_ milliseconds: Double) -> String { Entitlement.day(milliseconds, style) }
        func day(_ date: Date) -> String { style.day(date) }
        func string(_ key: String) -> String? { payload[key]?.stringValue }
        func date(_ key: String) -> String? { payload[key]?.numberValue.map(day) }
        func meaning(_ key: String) -> String? {
            guard let value = payload[key], case .known(let text) = FieldMeanings.meaning(field: key, value: value)
            else {
                return nil
            }
            return text
        }
        /// The day in `key` and whether it is at or before `now` (nil when it is no real date).
        func moment(_ key: String) -> (day: String, isPast: Bool)? {
            guard let milliseconds = payload[key]?.numberValue, milliseconds > -2_208_988_800_000,
                let date = Timestamp.date(milliseconds: milliseconds)
            else { return nil }
            return (day(date), date <= now)
        }

        switch kind {
        case .transaction:
            var parts = [
                "\(string("type").flatMap { transactionTypes[$0] } ?? "Purchase") \(string("productId") ?? "(no productId)")"
            ]
            if let purchased = date("purchaseDate") { parts.append("purchased \(purchased)") }
            if string("inAppOwnershipType") == "FAMILY_SHARED" { parts.append("family shared") }
            return parts.joined(separator: ", ")
                + "; \((access ?? decide(Facts(kind: .transaction, payload: payload), at: now, style: style)).explanation)."

        case .renewalInfo:
            var text = "Renewal info for \(string("productId") ?? string("autoRenewProductId") ?? "(no productId)")"
            switch payload["autoRenewStatus"] {
            case .integer(1)?:
                text += ": auto-renew on"
                let next = string("autoRenewProductId").flatMap { $0 == string("productId") ? nil : $0 }
                if let next { text += ", renews as \(next)" }
                if let renewal = moment("renewalDate") {
                    if renewal.isPast {
                        text += ", renewal was due \(renewal.day)"
                    } else {
                        text += next == nil ? ", renews \(renewal.day)" : " on \(renewal.day)"
                    }
                }
            case .integer(0)?:
                text += ": auto-renew off"
                if let intent = meaning("expirationIntent") { text += " (\(intent))" }
            default:
                text += ": auto-renew status unknown"
            }
            if payload["isInBillingRetryPeriod"] == .bool(true) { text += "; in billing retry" }
            if let grace = moment("gracePeriodExpiresDate") {
                text += grace.isPast ? "; grace period ended \(grace.day)" : "; grace period until \(grace.day)"
            }
            return text + "."

        case .notification:
            let type = string("notificationType") ?? "(no notificationType)"
            var text = type + (string("subtype").map { "/\($0)" } ?? "")
            if let what = meaning("notificationType") { text += " (\(what))" }
            // The first body present, as the identity reads it (`AppIdentity`).
            let body = NotificationBody.names.lazy.compactMap { payload[$0] }.first { $0 != .null }?.objectValue
            if let bundle = body?["bundleId"]?.stringValue { text += " for \(bundle)" }
            if let environment = body?["environment"]?.stringValue { text += " in \(environment)" }
            if let signed = date("signedDate") { text += ", sent \(signed)" }
            // `data.status` is the subscription's status when Apple sent the notification, not now.
            if let status = body?["status"],
                case .known(let meaning) = FieldMeanings.meaning(field: "status", value: status)
            {
                text += "; status when sent: \(meaning)"
            }
            if let nested {
                let decided = nested.access.grantsAccess != nil
                text += "; its \(nested.kind.displayName)\(decided ? " " : ": ")\(nested.access.explanation)"
            }
            return text + "."

        case .appTransaction:
            var text = "App \(string("bundleId") ?? "(no bundleId)") version \(string("applicationVersion") ?? "?")"
            if let environment = string("receiptType") { text += " (\(environment))" }
            if let original = date("originalPurchaseDate") {
                text += ", first purchased \(original)"
                if let version = string("originalApplicationVersion") { text += " as version \(version)" }
            }
            if let platform = string("originalPlatform") { text += " on \(platform)" }
            return text + "."

        case .realtimeRequest:
            var text = "Retention Messaging request for \(string("productId") ?? "(no productId)")"
            if let original = string("originalTransactionId") { text += " (original transaction \(original))" }
            if let locale = string("userLocale") { text += ", locale \(locale)" }
            if let environment = string("environment") { text += ", \(environment)" }
            return text + "."

        case .apiToken, .promotionalOffer, .introductoryOfferEligibility, .advancedCommerceRequest:
            return DeveloperClaims.summary(kind: kind, payload: payload, now: now)

        case .receipt:
            // Summarised from the decoded receipt (`ReceiptPayload.summary(now:)`), not from JSON.
            return "App receipt for \(string("bundle_id") ?? "(no bundle_id)")."

        case .transactionReceipt:
            // Its values are text as StoreKit 1 wrote them, its dates in milliseconds.
            var text = "StoreKit 1 transaction receipt"
            if let product = string("product-id") { text += " for \(Excerpt.of(product))" }
            if let bundle = string("bid") { text += " (\(Excerpt.of(bundle)))" }
            if let id = string("transaction-id") { text += ", transaction \(Excerpt.of(id))" }
            if let purchased = string("purchase-date-ms").flatMap(Timestamp.date(millisecondsText:)) {
                text += ", purchased \(day(purchased))"
            }
            let access = access ?? decide(Facts(kind: .transactionReceipt, payload: payload), at: now, style: style)
            return text + "; \(access.explanation)."

        case .realtimeResponse:
            return RealtimeResponseModel.summary(payload)

        case .unknown:
            return "Not a payload jwsinspect recognises (\(payload.count) field\(payload.count == 1 ? "" : "s"))."
        }
    }

    /// "2026-03-01": the day of a millisecond timestamp, in `style`'s zone (UTC by default).
    static func day(_ milliseconds: Double, _ style: DateStyle = .utc) -> String {
        // Before 1900 is Xcode's year-0001 "no date" placeholder, not an App Store date.
        guard milliseconds > -2_208_988_800_000, let date = Timestamp.date(milliseconds: milliseconds) else {
            return "no date"
        }
        return style.day(date)
    }
}
