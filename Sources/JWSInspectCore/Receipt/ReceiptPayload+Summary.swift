package import FoundationEssentials

extension ReceiptPayload {
    /// Whether the receipt grants access at `time`, in the words every report uses (the verdict,
    /// the summary, the `active` check), by the rule of `activeEntries(at:)`.
    ///
    /// An unexpired, uncancelled subscription decides first (the one expiring last); then an
    /// uncancelled entry without `expires_date` (a non-consumable); otherwise the receipt grants
    /// nothing, and the reason names the latest subscription's expiry, a cancellation, or that
    /// the receipt holds no in-app purchase.
    package func access(at time: Date, style: DateStyle = .utc) -> Entitlement.Access {
        switch expiration {
        case .unreadable(let problem):
            return .denied(
                problem + ", so the receipt grants nothing", brief: "unreadable expiration_date", state: .undecided)
        case .date(let expired) where expired <= time:
            return .denied(
                "the receipt expired \(style.stamp(expired)) (expiration_date)",
                brief: "receipt expired \(style.day(expired))", state: .expired)
        default:
            break
        }
        let active = activeEntries(at: time)
        // When an active entry's grant ends: its expiry, or a cancellation still to come.
        func until(_ entry: InAppPurchase) -> Date? {
            if case .active(let until) = Entitlement.standing(entry.purchase, at: time) { return until }
            return nil
        }
        if let subscription = active.filter(\.isSubscription).max(by: { (until($0) ?? time) < (until($1) ?? time) }),
            let expires = until(subscription)
        {
            let cancelled = subscription.cancellationDate == expires ? " (cancelled then)" : ""
            return .granted(
                " until \(style.stamp(expires))\(cancelled): subscription \(subscription.productText)",
                brief: "until \(style.day(expires))", until: expires)
        }
        if let owned = active.first {
            if let cancelled = until(owned) {
                return .granted(
                    " until \(style.stamp(cancelled)): \(owned.productText) is cancelled then (a non-consumable)",
                    brief: "until \(style.day(cancelled))", until: cancelled)
            }
            return .granted(
                ": \(owned.productText) is not cancelled and has no expires_date (a non-consumable)",
                brief: "\(owned.productText) owned")
        }
        guard !inApp.isEmpty else {
            return .denied(
                "the receipt holds no in-app purchase", brief: "no in-app purchase", state: .notAnEntitlement)
        }
        func unreadable(_ index: Int) -> Entitlement.Access? {
            guard let problem = inApp[index].unreadableDate else { return nil }
            return .denied(
                "in-app entry \(index + 1) (\(inApp[index].productText)): \(problem), so it grants nothing",
                brief: "unreadable date", state: .undecided)
        }
        if let latest = latestSubscriptionIndex {
            let entry = inApp[latest]
            if let problem = unreadable(latest) { return problem }
            if let cancelled = entry.cancellationDate {
                return .denied(
                    "latest subscription \(entry.productText) was cancelled \(style.stamp(cancelled))",
                    brief: "cancelled \(style.day(cancelled))", state: .revoked)
            }
            if let expires = entry.expiresDate, expires <= time {
                return .denied(
                    "latest subscription \(entry.productText) expired \(style.stamp(expires))",
                    brief: "expired \(style.day(expires))", state: .expired)
            }
        }
        if let problem = inApp.indices.lazy.compactMap(unreadable).first { return problem }
        if let cancelled = inApp.last(where: \.isCancelled) {
            let day = cancelled.cancellationDate.map { " \(style.day($0))" } ?? ""
            return .denied(
                "every purchase was cancelled (\(cancelled.productText) cancelled\(day))", brief: "cancelled",
                state: .revoked)
        }
        if let future = inApp.compactMap(\.purchaseDate).filter({ $0 > time }).min() {
            return .denied(
                "purchased after the access time (\(style.stamp(future)))", brief: "not yet purchased",
                state: .notYetPurchased)
        }
        return .denied("no in-app entry has a readable expires_date", brief: "no readable expiry", state: .undecided)
    }

    /// The subscription entry that expires last (by `expires_date`, cancelled or not).
    package var latestSubscription: InAppPurchase? { latestSubscriptionIndex.map { inApp[$0] } }

    /// The index in `inApp` of `latestSubscription`.
    private var latestSubscriptionIndex: Int? {
        var latest: (index: Int, expires: Date)?
        for (index, entry) in inApp.enumerated() {
            guard let expires = entry.expiresDate else { continue }
            if latest.map({ expires > $0.expires }) ?? true { latest = (index, expires) }
        }
        return latest?.index
    }

    /// One plain-language line for support staff: "App receipt for com.example.app 1.2
    /// (Production, created 2024-02-23), 4 in-app purchases; latest subscription
    /// com.example.pro expired 2024-03-23: grants no access."
    package func summary(at time: Date) -> String { summary(at: time, access: access(at: time)) }

    /// The summary with `access` as the decision to word (an inspection's own, withheld when
    /// the receipt is not proven authentic).
    package func summary(at time: Date, access: Entitlement.Access, style: DateStyle = .utc) -> String {
        var text = "App receipt for \(bundleID ?? "(no bundle_id)")"
        if let version = applicationVersion { text += " \(version)" }
        var context: [String] = []
        // In support words: ProductionSandbox is the sandbox (a test purchase).
        if let type = receiptType { context.append(EnvironmentPolicy.environment(receiptType: type)?.rawValue ?? type) }
        if let created = creationDate { context.append("created \(style.day(created))") }
        if !context.isEmpty { text += " (\(context.joined(separator: ", ")))" }
        let count = inApp.count
        text += ", \(count == 0 ? "no" : String(count)) in-app purchase\(count == 1 ? "" : "s")"
        switch access.grantsAccess {
        case true?:
            if let until = access.until,
                let subscription = activeEntries(at: time).first(where: { $0.expiresDate == until })
            {
                text += "; subscription \(subscription.quotedProduct) expires \(style.day(until)): grants access."
            } else {
                text += "; \(access.brief): grants access."
            }
        case nil:
            text += "; \(access.explanation)."
        case false?:
            if case .date(let expired) = expiration, expired <= time {
                text += "; \(access.brief): grants no access."
            } else if let latest = latestSubscription, let expires = latest.expiresDate, latest.unreadableDate == nil,
                latest.cancellationDate != nil || expires <= time
            {
                let what =
                    latest.cancellationDate.map { "cancelled \(style.day($0))" }
                    ?? "expired \(style.day(expires))"
                text += "; latest subscription \(latest.quotedProduct) \(what): grants no access"
                // A receipt is a snapshot: a renewal after its creation date cannot be in it.
                if let created = creationDate {
                    text += " (as of the receipt's creation, \(style.day(created)): a later renewal is not in it)"
                }
                text += "."
            } else {
                text += "; \(access.brief): grants no access."
            }
        }
        return text
    }
}

extension InAppPurchase {
    /// The product ID, or "(no product_id)".
    var productText: String { productID ?? "(no product_id)" }

    /// The product ID in quotes, as a summary names it, or "(no product_id)".
    var quotedProduct: String { productID.map { "\"\($0)\"" } ?? "(no product_id)" }
}
