internal import FoundationEssentials

/// A webhook log folded into each subscription's state (issue 29): every verified notification,
/// transaction and renewal info, in input order, becomes an `Event` of the subscription it
/// touches (keyed by `originalTransactionId`; a one-time purchase by its `transactionId`), and
/// the rules every server guide gives are checked across them: deliveries are retried
/// (`duplicate`, `conflict`), notifications arrive out of order (`out-of-order`: state moves by
/// signing time, never by arrival), refunds need a purchase (`refund-without-purchase`), and a
/// lapse between periods needs its notification (`gap`). `missed` compares with Apple's own
/// record (`reconcile(against:)`).
///
/// Only verified data is folded: an item whose verification failed is counted as skipped and
/// changes nothing. Memory grows with the events kept (one per distinct delivery; a repeated
/// delivery is a count), never with the input's size.
package struct Timeline: Sendable {
    /// One verified item, with what the fold reads from it.
    package struct Event: Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            case notification(type: String, subtype: String?)
            case transaction
            case renewalInfo
        }

        package let kind: Kind
        /// Its position in the input (1 for the first item), and where it came from.
        package let arrival: Int
        package let source: String
        /// The signing time of the item itself (a notification's own `signedDate`), ms since 1970.
        package let signedDate: Int64?
        /// Its `notificationUUID`, kept as 16 bytes when it is a UUID (and shown in lowercase, as
        /// Apple sends it), else as given.
        private let uuid: UUID?
        private let otherUUID: String?
        /// The transaction it carries (a notification's nested one), when it carries one.
        package let transaction: Transaction?
        /// The subscription it touches: `originalTransactionId`, else `transactionId` (also of
        /// renewal info alone).
        package let subscriptionID: String?
        /// The first 128 bits of the SHA-256 of the signed payload's bytes: two deliveries are the
        /// same when these are.
        let digest: SIMD2<UInt64>
        /// The billing grace period's end its renewal info signs (`gracePeriodExpiresDate`), ms.
        package let graceEnd: Int64?

        init(
            kind: Kind, arrival: Int, source: String, signedDate: Int64?, notificationUUID: String?,
            transaction: Transaction?, renewal: Renewal?, digest: SIMD2<UInt64>
        ) {
            self.kind = kind
            self.arrival = arrival
            self.source = source
            self.signedDate = signedDate
            uuid = notificationUUID.flatMap(UUID.init(uuidString:))
            otherUUID = uuid == nil ? notificationUUID : nil
            self.transaction = transaction
            subscriptionID =
                transaction?.originalTransactionId ?? transaction?.transactionId ?? renewal?.originalTransactionId
            self.digest = digest
            graceEnd = renewal?.gracePeriodExpiresDate
        }

        package var notificationUUID: String? { uuid.map { $0.uuidString.lowercased() } ?? otherUUID }

        /// "DID_RENEW/BILLING_RECOVERY", "transaction", "renewal info".
        package var name: String {
            switch kind {
            case .notification(let type, let subtype): subtype.map { "\(type)/\($0)" } ?? type
            case .transaction: "transaction"
            case .renewalInfo: "renewal info"
            }
        }

        /// The notification type, when it is one.
        package var notificationType: String? {
            if case .notification(let type, _) = kind { return type }
            return nil
        }
    }

    /// A transaction as the fold reads it.
    package struct Transaction: Sendable, Equatable {
        package let transactionId: String?
        package let originalTransactionId: String?
        package let productId: String?
        package let environment: String?
        package let appAccountToken: String?
        package let purchaseDate: Int64?
        package let expiresDate: Int64?
        package let revocationDate: Int64?
        package let revocationReason: Int64?
        package let signedDate: Int64?

        /// The members that never change for one transaction, whatever later notifications say
        /// of it (a refund adds `revocationDate`, an extension moves `expiresDate`).
        var identity: [ExactText?] {
            [originalTransactionId, productId, environment, appAccountToken, purchaseDate.map(String.init)].map {
                $0.map(ExactText.init)
            }
        }
    }

    /// Renewal info as the fold reads it.
    package struct Renewal: Sendable, Equatable {
        package let originalTransactionId: String?
        package let autoRenewStatus: Int64?
        package let autoRenewProductId: String?
        package let signedDate: Int64?
        package let gracePeriodExpiresDate: Int64?
        /// The members the access model reads (`Entitlement.accessKeys`).
        let access: [String: JSONValue]
    }

    /// Everything folded so far, in input order; the subscriptions' events refer into it.
    package private(set) var events: [Event] = []
    /// Repeated deliveries of a kept event (same `notificationUUID`, same signed payload), by the
    /// kept event's index: their arrival positions.
    package private(set) var repeats: [Int: [Int]] = [:]
    /// A delivery whose `notificationUUID` was seen with another signed payload: (kept event's
    /// index, this delivery).
    package private(set) var conflicts: [(kept: Int, delivery: Event)] = []
    /// Items not folded: (arrival, source, status, the one-line reason), for items that failed
    /// verification.
    package private(set) var skipped: [(arrival: Int, source: String, status: Status, reason: String)] = []
    /// Items folded that carry nothing of a subscription (a TEST notification): their count.
    package private(set) var unrelated = 0
    private var byUUID: [ExactText: Int] = [:]
    private var arrivals = 0
    /// Per subscription, the transaction that decides access so far: the latest period, the
    /// later-signed of equals, with the members the access rule reads (`Entitlement.accessKeys`).
    private(set) var deciders: [ExactText: Decider] = [:]
    /// Those members of every transaction an item showed revoked, by transactionId (the
    /// latest-signed such item's).
    private(set) var revoked: [ExactText: Decider] = [:]
    /// Per subscription, the latest-signed renewal info: its signedDate, `autoRenewStatus`, the
    /// members the access model reads, and the item that carried it.
    private(set) var renewals: [ExactText: (signed: Int64, status: Int64?, access: [String: JSONValue], arrival: Int)] =
        [:]
    /// Strings many events share (products, environments, subscription IDs, account tokens,
    /// types), stored once.
    private var strings: [ExactText: String] = [:]

    struct Decider: Sendable {
        let transactionId: String?
        let period: Int64
        let signedDate: Int64
        let access: [String: JSONValue]
        /// The item that carried it.
        let arrival: Int
    }

    /// The items added so far: folded, repeated, skipped or unrelated.
    package var items: Int { arrivals }

    package init() {}

    /// Folds one inspection (an item of the input, in order). A failed one is skipped; a valid
    /// one is kept, or counted as a repeat of the delivery it repeats.
    package mutating func add(_ inspection: Inspection) {
        arrivals += 1
        guard inspection.status == .valid, let (event, access, renewal) = event(inspection, arrival: arrivals) else {
            if inspection.status != .valid {
                skipped.append((arrivals, inspection.source, inspection.status, inspection.reason))
            } else {
                unrelated += 1
            }
            return
        }
        if let uuid = event.notificationUUID.map(ExactText.init), let kept = byUUID[uuid] {
            if events[kept].digest == event.digest {
                repeats[kept, default: []].append(event.arrival)
            } else {
                conflicts.append((kept, event))
            }
            return
        }
        guard event.subscriptionID != nil else {
            unrelated += 1
            return
        }
        if let uuid = event.notificationUUID { byUUID[ExactText(uuid)] = events.count }
        events.append(event)
        if let renewal, let id = event.subscriptionID.map(ExactText.init) {
            let signed = renewal.signedDate ?? event.signedDate ?? .min
            if (renewals[id]?.signed ?? .min) <= signed {
                renewals[id] = (signed, renewal.autoRenewStatus, renewal.access, event.arrival)
            }
        }
        if let transaction = event.transaction, let access, let id = event.subscriptionID.map(ExactText.init) {
            let decider = Decider(
                transactionId: transaction.transactionId,
                period: transaction.expiresDate ?? transaction.purchaseDate ?? 0,
                signedDate: transaction.signedDate ?? event.signedDate ?? .min, access: access, arrival: event.arrival)
            if deciders[id].map({ ($0.period, $0.signedDate) <= (decider.period, decider.signedDate) }) ?? true {
                deciders[id] = decider
            }
            if let revocation = access["revocationDate"], revocation != .null,
                let transactionId = transaction.transactionId.map(ExactText.init),
                (revoked[transactionId]?.signedDate ?? .min) <= decider.signedDate
            {
                revoked[transactionId] = decider
            }
        }
    }

    /// `text`, sharing the storage of an equal string seen before.
    private mutating func intern(_ text: String?) -> String? {
        guard let text else { return nil }
        let key = ExactText(text)
        if let stored = strings[key] { return stored }
        if strings.count < 1 << 16 { strings[key] = text }
        return text
    }

    // MARK: - Reading an inspection

    mutating func event(_ inspection: Inspection, arrival: Int) -> (Event, [String: JSONValue]?, Renewal?)? {
        guard let jws = inspection.jws else { return nil }
        let payload = jws.payload.object
        let sha = Digest.sha256(jws.payload.bytes)
        let digest = sha.withUnsafeBytes {
            SIMD2($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        switch inspection.kind {
        case .notification:
            guard let type = payload["notificationType"]?.stringValue else { return nil }
            var transaction: (Transaction, [String: JSONValue])?
            var renewal: Renewal?
            for nested in inspection.nested where nested.inspection.status == .valid {
                guard let object = nested.inspection.jws?.payload.object else { continue }
                switch nested.inspection.kind {
                case .transaction: transaction = self.transaction(object)
                case .renewalInfo: renewal = self.renewal(object)
                default: break
                }
            }
            let event = Event(
                kind: .notification(type: intern(type) ?? type, subtype: intern(payload["subtype"]?.stringValue)),
                arrival: arrival, source: inspection.source, signedDate: Self.milliseconds(payload["signedDate"]),
                notificationUUID: payload["notificationUUID"]?.stringValue, transaction: transaction?.0,
                renewal: renewal, digest: digest)
            return (event, transaction?.1, renewal)
        case .transaction:
            let (transaction, access) = self.transaction(payload)
            let event = Event(
                kind: .transaction, arrival: arrival, source: inspection.source,
                signedDate: Self.milliseconds(payload["signedDate"]), notificationUUID: nil,
                transaction: transaction, renewal: nil, digest: digest)
            return (event, access, nil)
        case .renewalInfo:
            let renewal = renewal(payload)
            let event = Event(
                kind: .renewalInfo, arrival: arrival, source: inspection.source,
                signedDate: Self.milliseconds(payload["signedDate"]), notificationUUID: nil, transaction: nil,
                renewal: renewal, digest: digest)
            return (event, nil, renewal)
        default:
            return nil
        }
    }

    mutating func transaction(_ payload: [String: JSONValue]) -> (Transaction, [String: JSONValue]) {
        var access: [String: JSONValue] = [:]
        for key in Entitlement.accessKeys where key != "data" { access[key] = payload[key] }
        let transaction = Transaction(
            transactionId: payload["transactionId"]?.stringValue,
            originalTransactionId: intern(payload["originalTransactionId"]?.stringValue),
            productId: intern(payload["productId"]?.stringValue),
            environment: intern(payload["environment"]?.stringValue),
            appAccountToken: intern(payload["appAccountToken"]?.stringValue?.lowercased()),
            purchaseDate: Self.milliseconds(payload["purchaseDate"]),
            expiresDate: Self.milliseconds(payload["expiresDate"]),
            revocationDate: Self.milliseconds(payload["revocationDate"]),
            revocationReason: Self.milliseconds(payload["revocationReason"]),
            signedDate: Self.milliseconds(payload["signedDate"]))
        return (transaction, access)
    }

    mutating func renewal(_ payload: [String: JSONValue]) -> Renewal {
        var access: [String: JSONValue] = [:]
        for key in Entitlement.accessKeys where key != "data" { access[key] = payload[key] }
        return Renewal(
            originalTransactionId: intern(payload["originalTransactionId"]?.stringValue),
            autoRenewStatus: Self.milliseconds(payload["autoRenewStatus"]),
            autoRenewProductId: intern(payload["autoRenewProductId"]?.stringValue),
            signedDate: Self.milliseconds(payload["signedDate"]),
            gracePeriodExpiresDate: Self.milliseconds(payload["gracePeriodExpiresDate"]), access: access)
    }

    /// A whole number of JSON (a date in milliseconds, a status), nil for anything else: a
    /// fraction, a number past Int64, a string.
    static func milliseconds(_ value: JSONValue?) -> Int64? {
        switch value {
        case .integer(let number): number
        case .double(let number) where number.rounded() == number && number.magnitude < 9.2e18: Int64(number)
        default: nil
        }
    }
}
