internal import FoundationEssentials
internal import JWSInspectCore

/// What `jwsinspect timeline` prints: per subscription its state and its events in signing
/// order, then the anomalies, the items skipped and a summary; as tables or as JSON records
/// (`{"schemaVersion": 1, "record": "subscription" | "anomaly" | "skipped" |
/// "timelineSummary", …}`, in that order).
struct TimelineReport {
    let timeline: Timeline
    /// Apple's record (`--against`), when given.
    let record: Timeline?
    let subscriptions: [Timeline.Subscription]
    let anomalies: [Timeline.Anomaly]
    /// When access was decided (`--access-at`, else now).
    let accessTime: Date
    /// The inputs that could not be read, and why (inspect's `unreadable`).
    let unreadable: [(source: String, reason: String)]
    /// The anomalies by subscription (nil: of none shown), found once.
    private let bySubscription: [ExactText: [Timeline.Anomaly]]
    private let others: [Timeline.Anomaly]

    init(
        timeline: Timeline, record: Timeline?, subscriptions: [Timeline.Subscription], anomalies: [Timeline.Anomaly],
        accessTime: Date, unreadable: [(source: String, reason: String)] = []
    ) {
        self.accessTime = accessTime
        self.unreadable = unreadable
        self.timeline = timeline
        self.record = record
        self.subscriptions = subscriptions
        self.anomalies = anomalies
        let shown = Set(subscriptions.map { ExactText($0.id) })
        var bySubscription: [ExactText: [Timeline.Anomaly]] = [:]
        var others: [Timeline.Anomaly] = []
        for anomaly in anomalies {
            if let id = anomaly.subscriptionID.map(ExactText.init), shown.contains(id) {
                bySubscription[id, default: []].append(anomaly)
            } else {
                others.append(anomaly)
            }
        }
        self.bySubscription = bySubscription
        self.others = others
    }

    // MARK: - Tables

    func tables(_ tables: TableRenderer) -> String {
        var out = ""
        for subscription in subscriptions {
            out += stateLine(subscription, tables) + "\n"
            let renews = subscription.autoRenewStatus.map { $0 == 1 ? "on" : "off" } ?? "unknown"
            let tokens =
                subscription.appAccountTokens.isEmpty
                ? "none" : safe(subscription.appAccountTokens.joined(separator: ", "))
            out += "  \(safe(subscription.access.explanation))\n"
            out += "  auto-renew \(renews) · appAccountToken \(tokens)\n"
            for index in subscription.events {
                out += "  " + eventLine(timeline.events[index], repeats: timeline.repeats[index] ?? []) + "\n"
            }
            for anomaly in bySubscription[ExactText(subscription.id)] ?? [] {
                out +=
                    "  " + tables.paint("! \(anomaly.kind.rawValue)", .yellow)
                    + ": \(safe(anomaly.detail)) (\(items(anomaly)))\n"
            }
            out += "\n"
        }
        if !others.isEmpty {
            out += tables.heading("OTHER ANOMALIES") + "\n"
            for anomaly in others {
                out +=
                    "  " + tables.paint("! \(anomaly.kind.rawValue)", .yellow)
                    + ": \(safe(anomaly.detail)) (\(items(anomaly)))\n"
            }
            out += "\n"
        }
        if !timeline.skipped.isEmpty {
            out += tables.heading("SKIPPED") + " (failed verification: not folded)\n"
            for item in timeline.skipped {
                out += "  item \(item.arrival)  \(item.status.rawValue)  \(safe(item.source))\n"
            }
            out += "\n"
        }
        if !unreadable.isEmpty {
            out += tables.heading("NOT READ") + "\n"
            for input in unreadable { out += "  \(safe(input.reason))\n" }
            out += "\n"
        }
        return out + summaryLine() + "\n"
    }

    /// One line per subscription and the summary (`--brief`).
    func brief(_ tables: TableRenderer) -> String {
        subscriptions.map { stateLine($0, tables) + "\n" }.joined() + summaryLine() + "\n"
    }

    /// "SUBSCRIPTION 2000… · com.example.pro · Sandbox · grants access until 2026-03-01 · 2 anomalies".
    private func stateLine(_ subscription: Timeline.Subscription, _ tables: TableRenderer) -> String {
        let count = bySubscription[ExactText(subscription.id)]?.count ?? 0
        let access = tables.paint(
            safe(subscription.access.briefPhrase), subscription.access.grantsAccess == true ? .green : .red)
        return tables.heading("SUBSCRIPTION") + " \(safe(subscription.id)) · "
            + "\(safe(subscription.productId ?? "(no productId)")) · "
            + "\(safe(subscription.environment ?? "(no environment)")) · \(access)"
            + (count == 0 ? "" : " · " + tables.paint("\(count) \(count == 1 ? "anomaly" : "anomalies")", .yellow))
    }

    /// "2025-01-31T00:00:00.000Z  ↻ DID_RENEW  item 2 (and 3)  uuid  transaction 1001".
    private func eventLine(_ event: Timeline.Event, repeats: [Int]) -> String {
        let when = event.signedDate.map(Timeline.date) ?? "(no signedDate)"
        let delivered = "item \(([event.arrival] + repeats).map(String.init).joined(separator: ", "))"
        var line = "\(when)  \(Self.glyph(event)) \(safe(event.name))  \(delivered)"
        if let uuid = event.notificationUUID { line += "  \(safe(uuid))" }
        if let transaction = event.transaction?.transactionId { line += "  transaction \(safe(transaction))" }
        if let revoked = event.transaction?.revocationDate { line += " (revoked \(Timeline.date(revoked)))" }
        return line
    }

    /// A glyph per kind of event: + purchase, ↻ renewal, ↩ refund or revocation, ✕ expiry,
    /// ! billing retry, ~ grace period, $ a transaction, r renewal info, · anything else.
    static func glyph(_ event: Timeline.Event) -> String {
        switch event.kind {
        case .transaction: return "$"
        case .renewalInfo: return "r"
        case .notification(let type, let subtype):
            switch Exact.ascii(type) {
            case "SUBSCRIBED", "ONE_TIME_CHARGE": return "+"
            case "DID_RENEW", "RENEWAL_EXTENDED": return "↻"
            case "REFUND", "REVOKE": return "↩"
            case "EXPIRED", "GRACE_PERIOD_EXPIRED": return "✕"
            case "DID_FAIL_TO_RENEW": return Exact.same(subtype, "GRACE_PERIOD") ? "~" : "!"
            default: return "·"
            }
        }
    }

    private func items(_ anomaly: Timeline.Anomaly) -> String {
        let noun = anomaly.kind == .missed ? "record item" : "item"
        return "\(noun)\(anomaly.items.count == 1 ? "" : "s") " + anomaly.items.map(String.init).joined(separator: ", ")
    }

    private func summaryLine() -> String {
        let repeats = timeline.repeats.values.reduce(0) { $0 + $1.count }
        var line = "\(timeline.items) item\(timeline.items == 1 ? "" : "s"): \(timeline.events.count) folded"
        if repeats > 0 { line += " (\(repeats) repeated deliver\(repeats == 1 ? "y" : "ies"))" }
        line += ", \(timeline.skipped.count) skipped"
        if timeline.unrelated > 0 { line += ", \(timeline.unrelated) of no subscription" }
        line += "; \(subscriptions.count) subscription\(subscriptions.count == 1 ? "" : "s"); "
        let counts = Timeline.Anomaly.Kind.allCases.compactMap { kind -> String? in
            let count = anomalies.filter { $0.kind == kind }.count
            return count == 0 ? nil : "\(count) \(kind.rawValue)"
        }
        line += counts.isEmpty ? "no anomaly" : "anomalies: " + counts.joined(separator: ", ")
        if let record { line += "; Apple's record: \(record.items) item\(record.items == 1 ? "" : "s")" }
        return line
    }

    // MARK: - JSON records

    /// The records, each beginning with `schemaVersion` and `record` (`docs/schema/`): the
    /// subscriptions, the anomalies, the items not folded (failed, or inputs not read), the counts.
    func records() -> [OrderedJSON.Object] {
        var records: [OrderedJSON.Object] = subscriptions.map(subscriptionRecord)
        records += anomalies.map { .init(distinct: RecordType.anomaly.head + anomalyMembers($0)) }
        records += timeline.skipped.map { item in
            .init(
                distinct: RecordType.skipped.head + [
                    ("item", .integer(Int64(item.arrival))), ("source", .string(item.source)),
                    ("status", .string(item.status.rawValue)), ("reason", .string(item.reason)),
                ])
        }
        records += unreadable.map { input in
            .init(
                distinct: RecordType.skipped.head + [
                    ("item", .null), ("source", .string(input.source)), ("status", .string(Renderer.unreadableStatus)),
                    ("reason", .string(input.reason)),
                ])
        }
        var counts = OrderedJSON.Object()
        for kind in Timeline.Anomaly.Kind.allCases {
            counts.add(kind.rawValue, .integer(Int64(anomalies.filter { $0.kind == kind }.count)))
        }
        records.append(
            .init(
                distinct: RecordType.timelineSummary.head + [
                    ("itemsRead", .integer(Int64(timeline.items))), ("folded", .integer(Int64(timeline.events.count))),
                    ("repeatedDeliveries", .integer(Int64(timeline.repeats.values.reduce(0) { $0 + $1.count }))),
                    ("skipped", .integer(Int64(timeline.skipped.count))),
                    ("unreadableInputs", .integer(Int64(unreadable.count))),
                    ("unrelated", .integer(Int64(timeline.unrelated))),
                    ("subscriptions", .integer(Int64(subscriptions.count))), ("anomalyCounts", .object(counts)),
                    ("recordItemsRead", record.map { .integer(Int64($0.items)) } ?? .null),
                ]))
        return records
    }

    private func subscriptionRecord(_ subscription: Timeline.Subscription) -> OrderedJSON.Object {
        let revoked: OrderedJSON =
            subscription.revocationDate.map { date in
                .object([
                    ("revocationDate", .string(Timeline.date(date))),
                    ("revocationReason", subscription.revocationReason.map(OrderedJSON.integer) ?? .null),
                ])
            } ?? .null
        let events: [OrderedJSON] = subscription.events.map { index in
            let event = timeline.events[index]
            let type: PayloadKind
            var notificationType: String?
            var subtype: String?
            switch event.kind {
            case .notification(let name, let found):
                (type, notificationType, subtype) = (.notification, name, found)
            case .transaction: type = .transaction
            case .renewalInfo: type = .renewalInfo
            }
            return .object([
                ("item", .integer(Int64(event.arrival))), ("source", .string(event.source)),
                ("signedDate", event.signedDate.map { .string(Timeline.date($0)) } ?? .null),
                ("type", .string(type.rawValue)),
                ("notificationType", notificationType.map(OrderedJSON.string) ?? .null),
                ("subtype", subtype.map(OrderedJSON.string) ?? .null),
                ("notificationUUID", event.notificationUUID.map(OrderedJSON.string) ?? .null),
                ("transactionId", event.transaction?.transactionId.map(OrderedJSON.string) ?? .null),
                ("deliveries", .array(([event.arrival] + (timeline.repeats[index] ?? [])).map { .integer(Int64($0)) })),
            ])
        }
        let anomalies = (bySubscription[ExactText(subscription.id)] ?? []).map {
            OrderedJSON.object(.init(distinct: anomalyMembers($0)))
        }
        return .init(
            distinct: RecordType.subscription.head + [
                ("originalTransactionId", .string(subscription.id)),
                ("productId", subscription.productId.map(OrderedJSON.string) ?? .null),
                ("environment", subscription.environment.map(OrderedJSON.string) ?? .null),
                ("access", AccessJSON.value(subscription.access, time: accessTime)),
                ("expiresDate", subscription.expiresDate.map { .string(Timeline.date($0)) } ?? .null),
                ("revoked", revoked),
                ("autoRenewStatus", subscription.autoRenewStatus.map(OrderedJSON.integer) ?? .null),
                ("appAccountTokens", .array(subscription.appAccountTokens.map(OrderedJSON.string))),
                ("events", .array(events)), ("anomalies", .array(anomalies)),
            ])
    }

    /// An anomaly: its class (`anomaly`), its subscription, the items it is about.
    private func anomalyMembers(_ anomaly: Timeline.Anomaly) -> OrderedJSON.Members {
        [
            ("anomaly", .string(anomaly.kind.rawValue)),
            ("originalTransactionId", anomaly.subscriptionID.map(OrderedJSON.string) ?? .null),
            ("items", .array(anomaly.items.map { .integer(Int64($0)) })),
            ("identifier", anomaly.identifier.map(OrderedJSON.string) ?? .null), ("detail", .string(anomaly.detail)),
        ]
    }

    /// Text from the input (signed payloads, sources), its control characters escaped: a line
    /// break or an escape sequence in a payload never draws a line of its own.
    private func safe(_ text: String) -> String { TerminalText.safe(text) }
}
