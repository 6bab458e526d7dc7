public import FoundationEssentials

/// What a payload means for a customer's access, in plain language, per Apple's rules:
/// a revoked transaction grants nothing; a subscription grants access until `expiresDate`;
/// an upgraded one grants nothing; consumables are never entitlements.
public enum Entitlement {
    /// Whether something grants access at a moment, and why.
    public struct Access: Sendable, Equatable {
        /// nil when this kind of payload cannot say (renewal info, notifications without a transaction).
        public let grantsAccess: Bool?
        public let explanation: String
    }

    /// Access granted by a payload at `date`.
    public static func access(kind: PayloadKind, payload: [String: JSONValue], at date: Date) -> Access {
        switch kind {
        case .transaction:
            return transactionAccess(payload, at: date)
        case .appTransaction:
            return Access(grantsAccess: true, explanation: "the app was purchased (app transactions are not revoked)")
        case .renewalInfo:
            return Access(grantsAccess: nil, explanation: "renewal info alone does not say whether access is granted; "
                          + "inspect the subscription's transaction")
        case .notification:
            return Access(grantsAccess: nil, explanation: "this notification carries no transaction to decide access")
        case .realtimeRequest, .unknown:
            return Access(grantsAccess: nil, explanation: "a \(kind.displayName) does not say whether access is granted")
        }
    }

    private static func transactionAccess(_ payload: [String: JSONValue], at date: Date) -> Access {
        if let revoked = payload["revocationDate"]?.numberValue {
            return Access(grantsAccess: false, explanation: "revoked \(day(revoked))\(revocationWhy(payload))")
        }
        if payload["isUpgraded"] == .bool(true) {
            return Access(grantsAccess: false, explanation: "upgraded to another product in the subscription group")
        }
        if payload["type"]?.stringValue == "Consumable" {
            return Access(grantsAccess: false, explanation: "consumables are never entitlements")
        }
        if let value = payload["expiresDate"], let expires = value.numberValue {
            guard let expiry = Timestamp.date(milliseconds: expires) else {
                return Access(grantsAccess: false, explanation: "expiresDate \(PayloadDisplay.rawText(value)) is not a valid date "
                              + "(\(Timestamp.rangeDescription)), so no access can be read from it")
            }
            return expiry > date
                ? Access(grantsAccess: true, explanation: "active until \(ISO8601.string(expiry))")
                : Access(grantsAccess: false, explanation: "expired \(ISO8601.string(expiry))")
        }
        return Access(grantsAccess: true, explanation: "not revoked and without an expiry")
    }

    private static func revocationWhy(_ payload: [String: JSONValue]) -> String {
        var reasons: [String] = []
        if let reason = payload["revocationReason"], case .known(let text) = FieldMeanings.meaning(field: "revocationReason", value: reason) {
            reasons.append(text)
        }
        if let type = payload["revocationType"], case .known(let text) = FieldMeanings.meaning(field: "revocationType", value: type) {
            reasons.append(text)
        }
        return reasons.isEmpty ? "" : " (" + reasons.joined(separator: "; ") + ")"
    }

    // MARK: Summary

    /// One plain-language line for support staff, e.g. "Auto-renewable subscription com.example.pro,
    /// purchased 2026-03-01, refunded 2026-03-04 (issue in the app): grants no access."
    public static func summary(kind: PayloadKind, payload: [String: JSONValue], now: Date) -> String {
        func string(_ key: String) -> String? { payload[key]?.stringValue }
        func date(_ key: String) -> String? { payload[key]?.numberValue.map(day) }
        func meaning(_ key: String) -> String? {
            guard let value = payload[key], case .known(let text) = FieldMeanings.meaning(field: key, value: value) else { return nil }
            return text
        }

        switch kind {
        case .transaction:
            let types = ["Auto-Renewable Subscription": "Auto-renewable subscription", "Non-Consumable": "Non-consumable",
                         "Consumable": "Consumable", "Non-Renewing Subscription": "Non-renewing subscription"]
            var parts = ["\(string("type").flatMap { types[$0] } ?? "Purchase") \(string("productId") ?? "(no productId)")"]
            if let purchased = date("purchaseDate") { parts.append("purchased \(purchased)") }
            if let expires = payload["expiresDate"]?.numberValue, payload["revocationDate"] == nil {
                if let expiry = Timestamp.date(milliseconds: expires) {
                    parts.append("\(expiry > now ? "expires" : "expired") \(day(expires))")
                } else {
                    parts.append("expiresDate is not a valid date")
                }
            }
            if let revoked = payload["revocationDate"]?.numberValue {
                let reason = payload["revocationReason"] == .integer(1) ? " (issue in the app)"
                    : payload["revocationReason"] == .integer(0) ? " (other reason)" : ""
                parts.append("refunded \(day(revoked))\(reason)")
            }
            if payload["isUpgraded"] == .bool(true) { parts.append("upgraded") }
            if string("inAppOwnershipType") == "FAMILY_SHARED" { parts.append("family shared") }
            let access = transactionAccess(payload, at: now)
            let verdict = access.grantsAccess == true ? "grants access" + (payload["expiresDate"] != nil ? " until \(date("expiresDate") ?? "?")" : "")
                : "grants no access"
            return parts.joined(separator: ", ") + ": \(verdict)."

        case .renewalInfo:
            var text = "Renewal info for \(string("productId") ?? string("autoRenewProductId") ?? "(no productId)")"
            switch payload["autoRenewStatus"] {
            case .integer(1)?:
                text += ": auto-renew on"
                if let next = string("autoRenewProductId"), next != string("productId") { text += ", renews as \(next)" }
                if let renewal = date("renewalDate") { text += ", next renewal \(renewal)" }
            case .integer(0)?:
                text += ": auto-renew off"
                if let intent = meaning("expirationIntent") { text += " (\(intent))" }
            default:
                text += ": auto-renew status unknown"
            }
            if payload["isInBillingRetryPeriod"] == .bool(true) { text += "; in billing retry" }
            if let grace = date("gracePeriodExpiresDate") { text += "; grace period until \(grace)" }
            return text + "."

        case .notification:
            let type = string("notificationType") ?? "(no notificationType)"
            var text = type + (string("subtype").map { "/\($0)" } ?? "")
            if let what = meaning("notificationType") { text += " (\(what))" }
            let body = ["data", "summary", "externalPurchaseToken", "appData"].lazy.compactMap { payload[$0]?.objectValue }.first
            if let bundle = body?["bundleId"]?.stringValue { text += " for \(bundle)" }
            if let environment = body?["environment"]?.stringValue { text += " in \(environment)" }
            if let signed = date("signedDate") { text += ", sent \(signed)" }
            if let status = body?["status"], case .known(let meaning) = FieldMeanings.meaning(field: "status", value: status) {
                text += "; subscription \(meaning)"
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

        case .unknown:
            return "Not a payload jwsinspect recognises (\(payload.count) field\(payload.count == 1 ? "" : "s"))."
        }
    }

    /// "2026-03-01": the day of a millisecond timestamp, UTC.
    static func day(_ milliseconds: Double) -> String {
        // Before 1900 is Xcode's year-0001 "no date" placeholder, not an App Store date.
        guard milliseconds > -2_208_988_800_000, let date = Timestamp.date(milliseconds: milliseconds) else { return "no date" }
        return String(ISO8601.string(date).prefix(10))
    }
}
