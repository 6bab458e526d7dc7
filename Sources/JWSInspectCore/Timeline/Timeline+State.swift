public import FoundationEssentials

extension Timeline {
    /// One subscription's state, folded from its events whatever order they arrived in.
    public struct Subscription: Sendable {
        /// `originalTransactionId` (a one-time purchase: its `transactionId`).
        public let id: String
        /// The product of the latest-signed transaction.
        public let productId: String?
        public let environment: String?
        /// Every `appAccountToken` seen, lowercased, sorted.
        public let appAccountTokens: [String]
        /// The latest `expiresDate` seen: the maximum, whatever the arrival order.
        public let expiresDate: Int64?
        /// The revocation of the transaction that decides access, when it is revoked.
        public let revocationDate: Int64?
        public let revocationReason: Int64?
        /// `autoRenewStatus` of the latest-signed renewal info (1: renews, 0: turned off).
        public let autoRenewStatus: Int64?
        /// Access at the time asked, by inspect's rule (`Entitlement.access`) on the transaction
        /// with the latest `expiresDate` (as revoked when any item says it is).
        public let access: Entitlement.Access
        /// Its events (indices into `Timeline.events`), by signing time, then arrival.
        public let events: [Int]
    }

    /// The subscriptions, in the order their first event arrived, with access decided at `date`.
    public func subscriptions(at date: Date) -> [Subscription] {
        grouped().map { id, indices in subscription(id, indices, at: date) }
    }

    /// Event indices by subscription, in the order each subscription first arrived.
    func grouped() -> [(String, [Int])] {
        var order: [String] = []
        var groups: [String: [Int]] = [:]
        for (index, event) in events.enumerated() {
            guard let id = event.subscriptionID else { continue }
            if groups[id] == nil { order.append(id) }
            groups[id, default: []].append(index)
        }
        return order.map { ($0, groups[$0] ?? []) }
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
        let renewals = ordered.compactMap { events[$0].renewal }
        // The transaction that decides access: the latest period (greatest expiresDate, else
        // purchaseDate), the later-signed of equals; revoked if any item says so.
        func period(_ transaction: Transaction) -> Int64 { transaction.expiresDate ?? transaction.purchaseDate ?? 0 }
        var decider = transactions.last
        for transaction in transactions where decider.map({ period(transaction) >= period($0) }) ?? true {
            decider = transaction
        }
        if let current = decider, current.revocationDate == nil,
            let revoked = transactions.last(where: {
                $0.transactionId == current.transactionId && $0.revocationDate != nil
            })
        {
            decider = revoked
        }
        let access =
            decider.map { Entitlement.access(kind: .transaction, payload: $0.accessMembers, at: date) }
            ?? .undecided("no transaction of it was seen", brief: "no transaction")
        return Subscription(
            id: id, productId: transactions.last?.productId ?? decider?.productId,
            environment: transactions.last?.environment,
            appAccountTokens: Array(Set(transactions.compactMap(\.appAccountToken))).sorted(),
            expiresDate: transactions.compactMap(\.expiresDate).max(), revocationDate: decider?.revocationDate,
            revocationReason: decider?.revocationReason,
            autoRenewStatus: renewals.max { ($0.signedDate ?? .min) < ($1.signedDate ?? .min) }?.autoRenewStatus,
            access: access, events: ordered)
    }
}
