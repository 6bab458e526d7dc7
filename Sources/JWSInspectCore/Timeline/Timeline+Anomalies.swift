internal import FoundationEssentials

extension Timeline {
    /// Something wrong between items, with the items it concerns.
    package struct Anomaly: Sendable, Equatable {
        package enum Kind: String, Sendable, CaseIterable {
            /// The same `notificationUUID` delivered more than once, the same signed payload.
            case duplicate
            /// The same `notificationUUID` with another signed payload, or one transaction
            /// described differently (product, original transaction, purchase date, environment,
            /// account token).
            case conflict
            /// An item that arrived after a later-signed item of the same subscription.
            case outOfOrder = "out-of-order"
            /// A REFUND or REVOKE (or a revoked transaction) for a transaction never seen granted.
            case refundWithoutPurchase = "refund-without-purchase"
            /// A renewal purchased after the previous period expired, by more than the grace
            /// period, with no EXPIRED or DID_FAIL_TO_RENEW between.
            case gap
            /// In Apple's record (`reconcile(against:)`) and not among the inputs.
            case missed
        }

        package let kind: Kind
        /// The subscription it concerns, when one.
        package let subscriptionID: String?
        /// The arrival positions of the items it concerns (for `missed`: in Apple's record).
        package let items: [Int]
        /// For `missed`: the `notificationUUID` or `transactionId` a backfill must replay.
        package let identifier: String?
        /// What is wrong, in words.
        package let detail: String
    }

    /// Every anomaly but `missed`, by the arrival of the first item each concerns.
    package func anomalies() -> [Anomaly] {
        var found: [Anomaly] = []
        for (kept, arrivals) in repeats.sorted(by: { $0.key < $1.key }) {
            let event = events[kept]
            found.append(
                Anomaly(
                    kind: .duplicate, subscriptionID: event.subscriptionID, items: [event.arrival] + arrivals,
                    identifier: event.notificationUUID,
                    detail: "\(event.name) \(event.notificationUUID ?? "") delivered \(arrivals.count + 1) times"))
        }
        for (kept, delivery) in conflicts {
            let event = events[kept]
            found.append(
                Anomaly(
                    kind: .conflict, subscriptionID: event.subscriptionID ?? delivery.subscriptionID,
                    items: [event.arrival, delivery.arrival], identifier: event.notificationUUID,
                    detail: "notificationUUID \(event.notificationUUID ?? "") names two different signed payloads: "
                        + "\(event.name) and \(delivery.name)"))
        }
        for (id, indices) in grouped() {
            found += transactionConflicts(id, indices)
            found += outOfOrder(id, indices)
            found += refundsWithoutPurchase(id, indices)
            found += gaps(id, indices)
        }
        return found.sorted { ($0.items.first ?? 0, $0.items.last ?? 0) < ($1.items.first ?? 0, $1.items.last ?? 0) }
    }

    /// One transaction described two ways: its identity members differ between items.
    private func transactionConflicts(_ id: String, _ indices: [Int]) -> [Anomaly] {
        var first: [ExactText: Int] = [:]
        var found: [Anomaly] = []
        var reported: Set<ExactText> = []
        for index in indices {
            guard let transaction = events[index].transaction, let transactionId = transaction.transactionId else {
                continue
            }
            let key = ExactText(transactionId)
            guard let earlier = first[key] else {
                first[key] = index
                continue
            }
            guard let seen = events[earlier].transaction, seen.identity != transaction.identity,
                !reported.contains(key)
            else { continue }
            reported.insert(key)
            found.append(
                Anomaly(
                    kind: .conflict, subscriptionID: id, items: [events[earlier].arrival, events[index].arrival],
                    identifier: transactionId,
                    detail: "transaction \(transactionId) is described differently by \(events[earlier].name) and "
                        + "\(events[index].name) (product, original transaction, purchase date, environment or "
                        + "account token)"))
        }
        return found
    }

    /// Items that arrived after a later-signed item of the same subscription: each names the
    /// latest-signed item that arrived before it.
    private func outOfOrder(_ id: String, _ indices: [Int]) -> [Anomaly] {
        var latest: Int?
        var found: [Anomaly] = []
        for index in indices {  // in arrival order
            let event = events[index]
            guard let signed = event.signedDate else { continue }
            if let latest, let latestSigned = events[latest].signedDate, signed < latestSigned {
                let before = events[latest]
                found.append(
                    Anomaly(
                        kind: .outOfOrder, subscriptionID: id, items: [before.arrival, event.arrival], identifier: nil,
                        detail: "\(event.name) (signed \(Self.date(signed))) arrived after \(before.name) (signed "
                            + "\(Self.date(latestSigned)))"))
            } else {
                latest = index
            }
        }
        return found
    }

    /// REFUND and REVOKE notifications, and revoked transactions, for a transaction no item
    /// showed granted (without a revocation).
    private func refundsWithoutPurchase(_ id: String, _ indices: [Int]) -> [Anomaly] {
        var granted: Set<ExactText> = []
        for index in indices {
            if let transaction = events[index].transaction, transaction.revocationDate == nil,
                let transactionId = transaction.transactionId
            {
                granted.insert(ExactText(transactionId))
            }
        }
        var found: [Anomaly] = []
        var reported: Set<ExactText> = []
        for index in indices {
            let event = events[index]
            let isRefund = Exact.same(event.notificationType, "REFUND") || Exact.same(event.notificationType, "REVOKE")
            guard let transaction = event.transaction, isRefund || transaction.revocationDate != nil,
                let transactionId = transaction.transactionId, !granted.contains(ExactText(transactionId)),
                reported.insert(ExactText(transactionId)).inserted
            else { continue }
            found.append(
                Anomaly(
                    kind: .refundWithoutPurchase, subscriptionID: id, items: [event.arrival], identifier: transactionId,
                    detail: "\(event.name) revokes transaction \(transactionId), which no item showed granted"))
        }
        return found
    }

    /// Consecutive periods (distinct transactions by purchase date) with a lapse, no EXPIRED,
    /// DID_FAIL_TO_RENEW or GRACE_PERIOD_EXPIRED signed in it, and no billing grace period
    /// signed over it (a renewal info's `gracePeriodExpiresDate` after the lapse began, at or
    /// after the renewal, within Apple's 60 days of billing retry).
    private func gaps(_ id: String, _ indices: [Int]) -> [Anomaly] {
        var periods: [ExactText: (purchase: Int64, expires: Int64, index: Int)] = [:]
        for index in indices {
            guard let transaction = events[index].transaction, let transactionId = transaction.transactionId,
                let purchase = transaction.purchaseDate, let expires = transaction.expiresDate,
                periods[ExactText(transactionId)] == nil
            else { continue }
            periods[ExactText(transactionId)] = (purchase, expires, index)
        }
        let ordered = periods.values.sorted { ($0.purchase, $0.index) < ($1.purchase, $1.index) }
        let lapseNotes: Set<String> = ["EXPIRED", "DID_FAIL_TO_RENEW", "GRACE_PERIOD_EXPIRED"]
        // When each such notification was signed, sorted: a lapse is told when one falls in it.
        let told = indices.compactMap { index -> Int64? in
            guard let type = Exact.ascii(events[index].notificationType), lapseNotes.contains(type) else { return nil }
            return events[index].signedDate
        }.sorted()
        let graceEnds = indices.compactMap { events[$0].graceEnd }
        let retryLimit: Int64 = 60 * 86_400_000
        var found: [Anomaly] = []
        for (previous, next) in zip(ordered, ordered.dropFirst()) where next.purchase > previous.expires {
            let graced = graceEnds.contains { end in
                end > previous.expires && end >= next.purchase && end <= previous.expires + retryLimit
            }
            if graced { continue }
            // The first notification signed at or after the previous period's purchase.
            var (low, high) = (0, told.count)
            while low < high {
                let middle = (low + high) / 2
                if told[middle] < previous.purchase { low = middle + 1 } else { high = middle }
            }
            guard low == told.count || told[low] > next.purchase else { continue }
            let (before, after) = (events[previous.index], events[next.index])
            found.append(
                Anomaly(
                    kind: .gap, subscriptionID: id, items: [before.arrival, after.arrival],
                    identifier: after.transaction?.transactionId,
                    detail: "transaction \(after.transaction?.transactionId ?? "?") was purchased "
                        + "\(Self.date(next.purchase)), after transaction \(before.transaction?.transactionId ?? "?") "
                        + "expired \(Self.date(previous.expires)), with no EXPIRED or DID_FAIL_TO_RENEW between"))
        }
        return found
    }

    /// What Apple's record (`record`: a fetched notification history or transaction history,
    /// folded) holds and the inputs do not: every notification by `notificationUUID`, every
    /// transaction by `transactionId`, in the record's order. A backfill must replay these.
    package func reconcile(against record: Timeline) -> [Anomaly] {
        var notifications: Set<ExactText> = []
        var transactions: Set<ExactText> = []
        for event in events {
            if let uuid = event.notificationUUID { notifications.insert(ExactText(uuid)) }
            if let transactionId = event.transaction?.transactionId { transactions.insert(ExactText(transactionId)) }
        }
        var found: [Anomaly] = []
        var reported: Set<ExactText> = []
        for event in record.events {
            if let uuid = event.notificationUUID {
                guard !notifications.contains(ExactText(uuid)), reported.insert(ExactText(uuid)).inserted else {
                    continue
                }
                found.append(
                    Anomaly(
                        kind: .missed, subscriptionID: event.subscriptionID, items: [event.arrival], identifier: uuid,
                        detail: "\(event.name) \(uuid) (signed \(event.signedDate.map(Self.date) ?? "?")) is in "
                            + "Apple's record and not among the inputs"))
            } else if let transactionId = event.transaction?.transactionId {
                guard !transactions.contains(ExactText(transactionId)),
                    reported.insert(ExactText(transactionId)).inserted
                else { continue }
                found.append(
                    Anomaly(
                        kind: .missed, subscriptionID: event.subscriptionID, items: [event.arrival],
                        identifier: transactionId,
                        detail: "transaction \(transactionId) (purchased "
                            + "\(event.transaction?.purchaseDate.map(Self.date) ?? "?")) is in Apple's record and no "
                            + "input carries it"))
            }
        }
        return found
    }

    /// Milliseconds since 1970 as ISO 8601, as the fold's words and reports show its dates.
    package static func date(_ milliseconds: Int64) -> String {
        ISO8601.string(Date(timeIntervalSince1970: Double(milliseconds) / 1_000))
    }
}
