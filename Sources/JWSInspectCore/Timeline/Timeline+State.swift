package import FoundationEssentials

extension Timeline {
    /// One subscription's state, folded from its events whatever order they arrived in.
    package struct Subscription: Sendable {
        /// `originalTransactionId` (a one-time purchase: its `transactionId`).
        package let id: String
        /// The product of the latest-signed transaction.
        package let productId: String?
        package let environment: String?
        /// Every `appAccountToken` seen, lowercased, sorted.
        package let appAccountTokens: [String]
        /// The latest `expiresDate` seen: the maximum, whatever the arrival order.
        package let expiresDate: Int64?
        /// The revocation of the transaction that decides access, when it is revoked.
        package let revocationDate: Int64?
        package let revocationReason: Int64?
        /// `autoRenewStatus` of the latest-signed renewal info (1: renews, 0: turned off).
        package let autoRenewStatus: Int64?
        /// Access at the time asked, by the one model (`Entitlement.decide`) on the transaction
        /// with the latest `expiresDate` (as revoked when any item says it is) and the
        /// latest-signed renewal info (a billing grace period or billing retry).
        package let access: Entitlement.Access
        /// Its events (indices into `Timeline.events`), by signing time, then arrival.
        package let events: [Int]
    }

    /// The subscriptions, in the order their first event arrived, with access decided at `date`.
    package func subscriptions(at date: Date) -> [Subscription] {
        grouped().map { id, indices in subscription(id, indices, at: date) }
    }

    /// Event indices by subscription, in the order each subscription first arrived.
    func grouped() -> [(String, [Int])] {
        var order: [ExactText] = []
        var groups: [ExactText: [Int]] = [:]
        for (index, event) in events.enumerated() {
            guard let id = event.subscriptionID.map(ExactText.init) else { continue }
            if groups[id] == nil { order.append(id) }
            groups[id, default: []].append(index)
        }
        return order.map { ($0.text, groups[$0] ?? []) }
    }

    /// Sorted by signing time (an item without one last), then by arrival.
    func bySigningTime(_ indices: [Int]) -> [Int] {
        indices.sorted { lhs, rhs in
            let (left, right) = (events[lhs], events[rhs])
            switch (left.signedDate, right.signedDate) {
            case (let l?, let r?) where l != r: return l < r
            case (.some, .none): return true
            case (.none, .some): return false
            default: return left.arrival < right.arrival
            }
        }
    }

    private func subscription(_ id: String, _ indices: [Int], at date: Date) -> Subscription {
        let ordered = bySigningTime(indices)
        let transactions = ordered.compactMap { events[$0].transaction }
        // The transaction that decides access: the latest period (greatest expiresDate, else
        // purchaseDate), the later-signed of equals; revoked if any item says so.
        var decider = deciders[ExactText(id)]
        if let transactionId = decider?.transactionId, let revocation = revoked[ExactText(transactionId)] {
            decider = revocation
        }
        let access =
            decider.map { decider in
                var facts = Entitlement.Facts(
                    kind: .transaction, payload: decider.access, path: "item \(decider.arrival)")
                facts.renewal = renewals[ExactText(id)].map { .init(payload: $0.access, path: "item \($0.arrival)") }
                return Entitlement.decide(facts, at: date)
            } ?? .undecided("no transaction of it was seen", brief: "no transaction")
        let deciding = transactions.last { $0.transactionId != nil && $0.transactionId == decider?.transactionId }
        return Subscription(
            id: id, productId: transactions.last?.productId ?? deciding?.productId,
            environment: transactions.last?.environment,
            appAccountTokens: Array(Set(transactions.compactMap { $0.appAccountToken.map(ExactText.init) })).map(\.text)
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) },
            expiresDate: transactions.compactMap(\.expiresDate).max(),
            revocationDate: decider.flatMap { Timeline.milliseconds($0.access["revocationDate"]) },
            revocationReason: decider.flatMap { Timeline.milliseconds($0.access["revocationReason"]) },
            autoRenewStatus: renewals[ExactText(id)]?.status ?? nil,
            access: access, events: ordered)
    }
}
