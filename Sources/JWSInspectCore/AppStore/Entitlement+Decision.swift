package import FoundationEssentials

extension Entitlement {
    /// Where the model puts a purchase at the access time: the `state` of every `access`
    /// object, in every record of every subcommand.
    package enum State: String, Sendable, CaseIterable {
        /// Grants access (until `until`, when it expires).
        case active
        /// A renewal failed and the signed renewal info proves a billing grace period at the
        /// access time: grants access until `gracePeriodExpiresDate`.
        case billingGracePeriod = "billing-grace-period"
        /// A renewal failed, Apple is retrying the payment, and no grace period covers the
        /// access time: no access.
        case billingRetry = "billing-retry"
        case expired
        /// Refunded, revoked by Apple, or no longer shared through Family Sharing.
        case revoked
        /// Upgraded to another product of its subscription group, which grants instead.
        case upgraded
        /// Bought after the access time.
        case notYetPurchased = "not-yet-purchased"
        /// Never an entitlement: a consumable, an app transaction, renewal info alone, a
        /// notification without a transaction, a realtime request, a developer's own token.
        case notAnEntitlement = "not-an-entitlement"
        /// About another customer than the one asked about (`fetch`).
        case wrongCustomer = "wrong-customer"
        /// Not decided: the data is not proven authentic, a fact is missing or unreadable, or
        /// the facts contradict each other (Apple's `status` among them).
        case undecided
    }

    /// Who a question was about, as `fetch` asked it; nil for `inspect`, which asks about no one.
    package enum Customer: Sendable, Equatable {
        /// Get Transaction Info: the signed `transactionId` must be this one.
        case transaction(String)
        /// Subscription statuses and history, asked by a transaction ID: an item is tied when
        /// its signed `transactionId` or `originalTransactionId` is that ID, or when it shares
        /// the asked transaction's signed `originalTransactionId` or `appTransactionId` (one
        /// account's, its Family Sharing purchases included), as Get Transaction Info resolved
        /// them (nil: not resolved, the item's own IDs alone tie it).
        case subscription(String, resolved: Resolved? = nil)
        /// An answer no signed data can tie to the customer (an order lookup served by a
        /// server that is not Apple's): never grants; why it cannot be tied.
        case untiable(String)
    }

    /// The signed IDs of the transaction a question was asked by, as Get Transaction Info
    /// answered them (verified, its `transactionId` the one asked).
    package struct Resolved: Sendable, Equatable {
        package let originalTransactionId: String?
        package let appTransactionId: String?

        package init(originalTransactionId: String?, appTransactionId: String?) {
            self.originalTransactionId = originalTransactionId
            self.appTransactionId = appTransactionId
        }
    }

    /// A signed item beside the deciding transaction, and its path in the record.
    package struct Signed: Sendable, Equatable {
        package let payload: [String: JSONValue]
        package let path: String

        package init(payload: [String: JSONValue], path: String) {
            self.payload = payload
            self.path = path
        }
    }

    /// Apple's own subscription `status` (1–5), as an API answer or a notification carries it,
    /// and the moment it describes (a snapshot: the notification's `signedDate`, the answer's).
    package struct AppleStatus: Sendable, Equatable {
        package let value: JSONValue
        package let path: String
        package let asOf: Date?

        package init(value: JSONValue, path: String, asOf: Date?) {
            self.value = value
            self.path = path
            self.asOf = asOf
        }
    }

    /// What an access decision reads beside a token's own payload: the customer asked about,
    /// and the verified renewal info and Apple's status an API answer holds beside a
    /// transaction (`fetch`). Empty for `inspect`.
    package struct Context: Sendable, Equatable {
        package var customer: Customer?
        package var renewal: Signed?
        package var status: AppleStatus?

        package init(customer: Customer? = nil, renewal: Signed? = nil, status: AppleStatus? = nil) {
            self.customer = customer
            self.renewal = renewal
            self.status = status
        }
    }

    /// The signed facts one access decision is made on, and nothing else.
    package struct Facts: Sendable, Equatable {
        /// The kind of the deciding payload.
        package var kind: PayloadKind
        /// The deciding payload's members (`accessKeys` at least).
        package var payload: [String: JSONValue]
        /// Where the deciding payload is in the record: "payload" for the token itself.
        package var path: String
        /// The renewal info of the subscription, when it came with the transaction.
        package var renewal: Signed?
        /// Apple's subscription status, when an answer or notification carries it.
        package var status: AppleStatus?
        /// The notification's `notificationType` and `subtype`, when a notification carries it.
        package var notificationType: String?
        package var subtype: String?
        /// The customer asked about (`fetch`); nil when none was.
        package var customer: Customer?

        package init(kind: PayloadKind, payload: [String: JSONValue], path: String = "payload") {
            self.kind = kind
            self.payload = payload
            self.path = path
        }

        /// The facts of a token: its own payload, or for a notification its nested transaction
        /// (else its app transaction) with the renewal info, status, type and subtype beside it.
        ///
        /// - Parameter nested: a notification's nested tokens, decoded (path, kind, members).
        package static func of(
            kind: PayloadKind, payload: [String: JSONValue],
            nested: [(path: String, kind: PayloadKind, payload: [String: JSONValue])]
        ) -> Facts {
            guard kind == .notification else { return Facts(kind: kind, payload: payload) }
            let decisive =
                nested.first { $0.kind == .transaction } ?? nested.first { $0.kind == .appTransaction }
            var facts =
                decisive.map { Facts(kind: $0.kind, payload: $0.payload, path: $0.path) }
                ?? Facts(kind: .notification, payload: payload)
            if let renewal = nested.first(where: { $0.kind == .renewalInfo }) {
                facts.renewal = Signed(payload: renewal.payload, path: renewal.path)
            }
            // The first body present, as the identity reads it (`AppIdentity`).
            for name in NotificationBody.names where payload[name].map({ $0 != .null }) ?? false {
                guard let status = payload[name]?.objectValue?["status"] else { break }
                facts.status = AppleStatus(
                    value: status, path: name + ".status", asOf: Timestamp.date(payload["signedDate"]))
                break
            }
            facts.notificationType = payload["notificationType"]?.stringValue
            facts.subtype = payload["subtype"]?.stringValue
            return facts
        }

        /// These facts, with what `context` holds beside the token (the token's own first).
        package func with(_ context: Context) -> Facts {
            var facts = self
            facts.customer = context.customer
            facts.renewal = renewal ?? context.renewal
            facts.status = status ?? context.status
            return facts
        }
    }

    /// The members the model reads, of a transaction, renewal info or notification.
    static let accessKeys = [
        "revocationDate", "revocationReason", "revocationType", "isUpgraded", "type", "expiresDate", "purchaseDate",
        "transactionId", "originalTransactionId", "inAppOwnershipType", "gracePeriodExpiresDate",
        "isInBillingRetryPeriod", "signedDate", "notificationType", "subtype", "appTransactionId",
        "advancedCommerceInfo",
        "data",
    ]

    /// Access granted by a payload alone at `date` (`decide` on its own facts).
    package static func access(
        kind: PayloadKind, payload: [String: JSONValue], at date: Date, style: DateStyle = .utc
    ) -> Access {
        decide(Facts(kind: kind, payload: payload), at: date, style: style)
    }

    /// The one entitlement model: what `facts` grant at `date`, why, and which signed items
    /// decided it. Fails closed: only an authentic, tied, unrevoked purchase in its term (or
    /// in a billing grace period the signed renewal info proves) grants access; facts that
    /// contradict each other decide nothing.
    ///
    /// - Parameter style: how the dates in its words read (UTC by default).
    package static func decide(_ facts: Facts, at date: Date, style: DateStyle = .utc) -> Access {
        switch facts.kind {
        case .transaction:
            return transactionAccess(facts, at: date, style: style)
        case .appTransaction:
            return .notAnEntitlement(
                "an app transaction proves the app was installed or bought, not an in-app purchase",
                brief: "proves the app was installed"
            ).decided(by: [facts.path])
        case .renewalInfo:
            return .notAnEntitlement(
                "renewal info alone says how a subscription renews, not whether it grants access; "
                    + "inspect the subscription's transaction",
                brief: "renewal info alone"
            ).decided(by: [facts.path])
        case .notification:
            return .notAnEntitlement("this notification carries no transaction", brief: "no transaction in it")
                .decided(by: [facts.path])
        case .realtimeRequest:
            return .notAnEntitlement(
                "a Retention Messaging request asks which message to show; it proves no purchase",
                brief: "realtime request"
            ).decided(by: [facts.path])
        case .apiToken, .promotionalOffer, .introductoryOfferEligibility, .advancedCommerceRequest:
            return .notAnEntitlement(
                "\(ClaimDetail.article(facts.kind)) is signed by the developer; it proves no purchase",
                brief: "not a purchase"
            ).decided(by: [facts.path])
        case .receipt:
            // Decided on the receipt's in-app entries (`ReceiptPayload.access(at:)`), not on JSON.
            return .undecided("a receipt's access is decided on its in-app entries", brief: "receipt")
        case .transactionReceipt:
            // Nothing in it is proven: only Apple can say whether its transaction is real.
            let id = facts.payload["transaction-id"]?.stringValue.map { " \(Excerpt.of($0))" } ?? ""
            return .undecided(
                "no access decision: a StoreKit 1 transaction receipt is signed in a format nothing here verifies; "
                    + "ask Apple about its transaction\(id) (Get Transaction Info)",
                brief: "not proven: ask Apple"
            ).decided(by: [facts.path])
        case .realtimeResponse:
            return .notAnEntitlement(
                "a realtime response chooses the retention message a customer sees; it proves no purchase",
                brief: "not a purchase"
            ).decided(by: [facts.path])
        case .unknown:
            return .undecided(
                "\(ClaimDetail.article(facts.kind)) does not say whether access is granted", brief: "not a purchase")
        }
    }

    /// A transaction's access: tied to the customer, consistent with its notification, its
    /// standing at `date`, a billing grace period or retry from its renewal info, and Apple's
    /// status held against all of it.
    private static func transactionAccess(_ facts: Facts, at date: Date, style: DateStyle) -> Access {
        let payload = facts.payload
        var paths = [facts.path]
        if let customer = facts.customer, let refusal = refusal(customer, payload) {
            return refusal.decided(by: paths)
        }
        // The renewal info of this subscription only (the same originalTransactionId).
        let renewal = facts.renewal.flatMap { renewal -> Signed? in
            guard let original = payload["originalTransactionId"]?.stringValue,
                Exact.same(renewal.payload["originalTransactionId"]?.stringValue, original)
            else { return nil }
            return renewal
        }
        if let contradiction = contradiction(facts, renewal: renewal) {
            return contradiction.decided(by: paths + (renewal.map { [$0.path] } ?? []))
        }
        var access = standingAccess(facts, renewal: renewal, at: date, style: style)
        access.access = itemRevocations(access.access, payload, at: date, style: style)
        if access.usedRenewal, let renewal { paths.append(renewal.path) }
        if let status = facts.status {
            paths.append(status.path)
            let asOf = status.asOf ?? date
            let then = asOf == date ? access : standingAccess(facts, renewal: renewal, at: asOf, style: style)
            if let disagreement = disagreement(status, then.access, asOf: asOf, style: style) {
                return disagreement.decided(by: paths)
            }
        }
        // Renewal info is a snapshot of when it was signed: said when it decided, far from the access time.
        if access.usedRenewal, let signed = Timestamp.date(renewal?.payload["signedDate"]),
            abs(signed.timeIntervalSince(date)) > 86_400
        {
            access.access = access.access.noting(
                "; decided from a snapshot signed \(style.stamp(signed)), "
                    + "\(wholeDays(signed, date)) day(s) \(signed < date ? "before" : "after") the access time")
        }
        return access.access.decided(by: paths)
    }

    /// Advanced Commerce: each item's own `revocationDate`. Every item revoked at `date` (or
    /// with a `revocationDate` that is no date): the transaction grants nothing; some: it
    /// grants, and its words name the items revoked.
    private static func itemRevocations(
        _ access: Access, _ payload: [String: JSONValue], at date: Date, style: DateStyle
    ) -> Access {
        guard access.grantsAccess == true,
            case .array(let items)? = payload["advancedCommerceInfo"]?.objectValue?["items"],
            !items.isEmpty
        else { return access }
        var revoked: [String] = []
        for item in items {
            guard let value = item.objectValue?["revocationDate"], value != .null else { continue }
            if let when = Timestamp.date(value), when > date { continue }
            revoked.append(item.objectValue?["SKU"]?.stringValue.map { "\"\(Excerpt.of($0))\"" } ?? "(no SKU)")
        }
        guard !revoked.isEmpty else { return access }
        let named =
            revoked.prefix(5).joined(separator: ", ") + (revoked.count > 5 ? " and \(revoked.count - 5) more" : "")
        if revoked.count == items.count {
            return .denied(
                "every Advanced Commerce item is revoked (\(named))", brief: "every item revoked", state: .revoked)
        }
        return access.noting("; Advanced Commerce item(s) revoked: \(named)")
    }

    private static func wholeDays(_ one: Date, _ other: Date) -> Int {
        Int((abs(one.timeIntervalSince(other)) / 86_400).rounded(.down))
    }

    /// Whether a transaction's signed IDs tie it to `customer`.
    static func isTied(_ customer: Customer, _ payload: [String: JSONValue]) -> Bool {
        refusal(customer, payload) == nil
    }

    /// Why a transaction is not about `customer`, or nil when it is.
    private static func refusal(_ customer: Customer, _ payload: [String: JSONValue]) -> Access? {
        let transaction = payload["transactionId"]?.stringValue
        let original = payload["originalTransactionId"]?.stringValue
        let shown = "transactionId \(transaction ?? "(none)"), originalTransactionId \(original ?? "(none)")"
        switch customer {
        case .transaction(let asked) where Exact.same(transaction, asked): return nil
        case .subscription(let asked, let resolved)
        where Exact.same(transaction, asked) || Exact.same(original, asked)
            || (original != nil && Exact.same(original, resolved?.originalTransactionId))
            || (payload["appTransactionId"]?.stringValue).map({ Exact.same($0, resolved?.appTransactionId) }) == true:
            return nil
        case .transaction(let asked):
            return Access(
                grantsAccess: false,
                explanation: "wrong customer: this transaction (\(shown)) is not the one asked about (\(asked))",
                until: nil, brief: "not transaction \(asked)", state: .wrongCustomer)
        case .subscription(let asked, _):
            // Another subscription group of the same account answers too: not tied, not proven another's.
            return .undecided(
                "no access decision: this transaction (\(shown)) is not tied to \(asked) by its signed IDs "
                    + "(another subscription of the account, or another customer's)",
                brief: "not tied to \(asked)")
        case .untiable(let why):
            return .undecided("no access decision: \(why)", brief: "not tied to the customer")
        }
    }

    /// A notification that says what its transaction or renewal info does not.
    private static func contradiction(_ facts: Facts, renewal: Signed?) -> Access? {
        guard let type = facts.notificationType else { return nil }
        let revoked = facts.payload["revocationDate"].map { $0 != .null } ?? false
        if Exact.same(type, "REFUND") || Exact.same(type, "REVOKE"), !revoked {
            return .undecided(
                "no access decision: a \(type) notification whose transaction has no revocationDate "
                    + "(the two contradict each other)",
                brief: "\(type) without revocationDate")
        }
        if Exact.same(type, "DID_FAIL_TO_RENEW"), Exact.same(facts.subtype, "GRACE_PERIOD"),
            Timestamp.date(renewal?.payload["gracePeriodExpiresDate"]) == nil
        {
            return .undecided(
                "no access decision: a DID_FAIL_TO_RENEW/GRACE_PERIOD notification without renewal info "
                    + "of this subscription holding gracePeriodExpiresDate (the two contradict each other)",
                brief: "grace period without gracePeriodExpiresDate")
        }
        return nil
    }

    /// Apple's status numbers, and the states each one names.
    private static let statusStates: [Int64: Set<State>] = [
        1: [.active], 2: [.expired, .upgraded], 3: [.billingRetry], 4: [.billingGracePeriod], 5: [.revoked],
    ]

    /// Why Apple's `status` and the signed facts at `asOf` disagree, or nil when they agree.
    private static func disagreement(_ status: AppleStatus, _ then: Access, asOf: Date, style: DateStyle) -> Access? {
        guard case .integer(let number) = status.value, let states = statusStates[number] else {
            return .undecided(
                "no access decision: status \(shown(status.value)) is not one Apple defines (1 to 5)",
                brief: "unknown status")
        }
        if states.contains(then.state) { return nil }
        let meaning = FieldMeanings.meaning(field: "status", value: status.value)
        let named = if case .known(let text) = meaning { " (\(text))" } else { "" }
        return .undecided(
            "no access decision: Apple's status \(number)\(named) as of \(style.stamp(asOf)) disagrees with "
                + "the signed transaction, which then \(then.explanation)",
            brief: "status \(number) disagrees")
    }

    /// An access, and whether the renewal info decided it.
    private struct Worded {
        var access: Access
        var usedRenewal: Bool
    }

    /// The transaction's standing at `date`, in its member names; an expired auto-renewable
    /// subscription is then in a billing grace period or billing retry when `renewal` says so.
    private static func standingAccess(_ facts: Facts, renewal: Signed?, at date: Date, style: DateStyle) -> Worded {
        let purchase = Purchase(transaction: facts.payload)
        let standing = standing(purchase, at: date)
        let access = word(standing, facts, at: date, style: style)
        guard case .expired(let expiry) = standing, purchase.term == .autoRenewable, let renewal else {
            return Worded(access: access, usedRenewal: false)
        }
        let grace = Timestamp.date(renewal.payload["gracePeriodExpiresDate"])
        // Keyed on gracePeriodExpiresDate, not on isInBillingRetryPeriod (Apple's guidance).
        if let grace, grace > date, grace > expiry {
            return Worded(
                access: .granted(
                    " until \(style.stamp(grace)): billing grace period, Apple is retrying the payment "
                        + "(expired \(style.stamp(expiry)))",
                    brief: "billing grace period until \(style.day(grace))", until: grace, state: .billingGracePeriod),
                usedRenewal: true)
        }
        guard renewal.payload["isInBillingRetryPeriod"] == .bool(true) else {
            return Worded(access: access, usedRenewal: false)
        }
        let ended = grace.flatMap { $0 > expiry ? "; its grace period ended \(style.stamp($0))" : nil } ?? ""
        return Worded(
            access: .denied(
                "billing retry since \(style.stamp(expiry)): Apple is retrying the payment\(ended)",
                brief: "billing retry since \(style.day(expiry))", state: .billingRetry),
            usedRenewal: true)
    }

    /// A transaction's standing, worded in its member names.
    private static func word(_ standing: Standing, _ facts: Facts, at date: Date, style: DateStyle) -> Access {
        let payload = facts.payload
        switch standing {
        case .revocationUnreadable(let shown):
            return .denied(
                "revocationDate \(shown) is there but no date, so the transaction is taken as revoked",
                brief: "revocationDate unreadable", state: .revoked)
        case .revoked:
            // The revocation is a number (`Purchase(transaction:)` read it so).
            let revoked = payload["revocationDate"]?.numberValue ?? 0
            let family =
                Exact.same(facts.notificationType, "REVOKE")
                || Exact.same(payload["revocationType"]?.stringValue, "FAMILY_REVOKE")
                || Exact.same(payload["inAppOwnershipType"]?.stringValue, "FAMILY_SHARED")
            if family {
                return .denied(
                    "revoked from this family member \(day(revoked, style)): Family Sharing no longer gives it to "
                        + "them (not a refund to them)\(revocationWhy(payload))",
                    brief: "revoked from family member \(day(revoked, style))", state: .revoked)
            }
            return .denied(
                "revoked \(day(revoked, style))\(revocationWhy(payload))", brief: "revoked \(day(revoked, style))",
                state: .revoked)
        case .upgraded:
            return .denied(
                "upgraded to another product in the subscription group", brief: "upgraded", state: .upgraded)
        case .upgradeUnreadable(let shown):
            return .denied(
                "isUpgraded \(shown) is neither true nor false, so no access can be read from it",
                brief: "isUpgraded unreadable", state: .undecided)
        case .consumable:
            return .notAnEntitlement("a consumable is used up, never an ongoing entitlement", brief: "consumable")
        case .notYetPurchased(let purchased):
            return .denied(
                "not yet purchased: bought \(style.stamp(purchased)), after the access time",
                brief: "not yet purchased", state: .notYetPurchased)
        case .expiryUnreadable(let shown):
            return .denied(
                "expiresDate \(shown) is not a valid date (\(Timestamp.rangeDescription)), "
                    + "so no access can be read from it",
                brief: "expiresDate is not a valid date", state: .undecided)
        case .active(let expiry):
            let revoked = Timestamp.date(payload["revocationDate"])
            let refund = revoked == expiry ? " (revoked then)" : ""
            return .granted(
                " until \(style.stamp(expiry))\(refund)", brief: "until \(style.day(expiry))", until: expiry)
        case .expired(let expiry):
            return .denied("expired \(style.stamp(expiry))", brief: "expired \(style.day(expiry))", state: .expired)
        case .noTerm:
            return .denied(
                "an auto-renewable subscription without expiresDate, so it has no term to grant",
                brief: "no expiresDate", state: .undecided)
        case .owned:
            return .granted(": a non-consumable, not revoked", brief: "non-consumable, not revoked")
        case .termIsTheApps:
            return .undecided(
                "no access decision: a non-renewing subscription's term is the app's to decide "
                    + "(Apple gives it no expiresDate); it is not revoked",
                brief: "term is the app's to decide")
        case .unknownType(let type):
            let what = type.map { "type \"\(Excerpt.of($0))\" is not one jwsinspect knows" } ?? "it names no type"
            return .undecided(
                "no access decision: \(what), and it has no expiresDate",
                brief: type == nil ? "no type, no expiry" : "unknown type, no expiry")
        }
    }
}

extension Entitlement.Access {
    /// The same decision, with `text` added to its explanation.
    func noting(_ text: String) -> Entitlement.Access {
        Entitlement.Access(
            grantsAccess: grantsAccess, explanation: explanation + text, until: until, brief: brief, state: state,
            decidedBy: decidedBy)
    }
}
