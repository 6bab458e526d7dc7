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
public struct Timeline: Sendable {
    /// One verified item, with what the fold reads from it.
    public struct Event: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case notification(type: String, subtype: String?)
            case transaction
            case renewalInfo
        }

        public let kind: Kind
        /// Its position in the input (1 for the first item), and where it came from.
        public let arrival: Int
        public let source: String
        /// The signing time of the item itself (a notification's own `signedDate`), ms since 1970.
        public let signedDate: Int64?
        public let notificationUUID: String?
        /// The transaction it carries (a notification's nested one), when it carries one.
        public let transaction: Transaction?
        /// The renewal info it carries, when it carries one.
        public let renewal: Renewal?
        /// SHA-256 of the signed payload's bytes: two deliveries are the same when these are.
        let digest: [UInt8]

        /// The subscription it touches: `originalTransactionId`, else `transactionId`.
        public var subscriptionID: String? {
            transaction?.originalTransactionId ?? transaction?.transactionId ?? renewal?.originalTransactionId
        }

        /// "DID_RENEW/BILLING_RECOVERY", "transaction", "renewal info".
        public var name: String {
            switch kind {
            case .notification(let type, let subtype): subtype.map { "\(type)/\($0)" } ?? type
            case .transaction: "transaction"
            case .renewalInfo: "renewal info"
            }
        }

        /// The notification type, when it is one.
        public var notificationType: String? {
            if case .notification(let type, _) = kind { return type }
            return nil
        }
    }

    /// A transaction as the fold reads it.
    public struct Transaction: Sendable, Equatable {
        public let transactionId: String?
        public let originalTransactionId: String?
        public let productId: String?
        public let environment: String?
        public let appAccountToken: String?
        public let purchaseDate: Int64?
        public let expiresDate: Int64?
        public let revocationDate: Int64?
        public let revocationReason: Int64?
        public let signedDate: Int64?
        /// The members the access rule reads (`Entitlement.accessKeys`), as signed.
        let accessMembers: [String: JSONValue]

        /// The members that never change for one transaction, whatever later notifications say
        /// of it (a refund adds `revocationDate`, an extension moves `expiresDate`).
        var identity: [String?] {
            [originalTransactionId, productId, environment, appAccountToken, purchaseDate.map(String.init)]
        }
    }

    /// Renewal info as the fold reads it.
    public struct Renewal: Sendable, Equatable {
        public let originalTransactionId: String?
        public let autoRenewStatus: Int64?
        public let autoRenewProductId: String?
        public let signedDate: Int64?
    }

    /// Everything folded so far, in input order; the subscriptions' events refer into it.
    public private(set) var events: [Event] = []
    /// Repeated deliveries of a kept event (same `notificationUUID`, same signed payload), by the
    /// kept event's index: their arrival positions.
    public private(set) var repeats: [Int: [Int]] = [:]
    /// A delivery whose `notificationUUID` was seen with another signed payload: (kept event's
    /// index, this delivery).
    public private(set) var conflicts: [(kept: Int, delivery: Event)] = []
    /// Items not folded: (arrival, source, status), for items that failed verification.
    public private(set) var skipped: [(arrival: Int, source: String, status: Status)] = []
    /// Items folded that carry nothing of a subscription (a TEST notification): their count.
    public private(set) var unrelated = 0
    private var byUUID: [String: Int] = [:]
    private var arrivals = 0

    /// The items added so far: folded, repeated, skipped or unrelated.
    public var items: Int { arrivals }

    public init() {}

    /// Folds one inspection (an item of the input, in order). A failed one is skipped; a valid
    /// one is kept, or counted as a repeat of the delivery it repeats.
    public mutating func add(_ inspection: Inspection) {
        arrivals += 1
        guard inspection.status == .valid, let event = Self.event(inspection, arrival: arrivals) else {
            if inspection.status != .valid {
                skipped.append((arrivals, inspection.source, inspection.status))
            } else {
                unrelated += 1
            }
            return
        }
        if let uuid = event.notificationUUID, let kept = byUUID[uuid] {
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
        if let uuid = event.notificationUUID { byUUID[uuid] = events.count }
        events.append(event)
    }

    // MARK: - Reading an inspection

    static func event(_ inspection: Inspection, arrival: Int) -> Event? {
        guard let jws = inspection.jws else { return nil }
        let payload = jws.payload.object
        let digest = Digest.sha256(jws.payload.bytes)
        switch inspection.kind {
        case .notification:
            guard let type = payload["notificationType"]?.stringValue else { return nil }
            var transaction: Transaction?
            var renewal: Renewal?
            for nested in inspection.nested where nested.inspection.status == .valid {
                guard let object = nested.inspection.jws?.payload.object else { continue }
                switch nested.inspection.kind {
                case .transaction: transaction = Self.transaction(object)
                case .renewalInfo: renewal = Self.renewal(object)
                default: break
                }
            }
            return Event(
                kind: .notification(type: type, subtype: payload["subtype"]?.stringValue), arrival: arrival,
                source: inspection.source, signedDate: Self.milliseconds(payload["signedDate"]),
                notificationUUID: payload["notificationUUID"]?.stringValue, transaction: transaction,
                renewal: renewal, digest: digest)
        case .transaction:
            return Event(
                kind: .transaction, arrival: arrival, source: inspection.source,
                signedDate: Self.milliseconds(payload["signedDate"]), notificationUUID: nil,
                transaction: Self.transaction(payload), renewal: nil, digest: digest)
        case .renewalInfo:
            return Event(
                kind: .renewalInfo, arrival: arrival, source: inspection.source,
                signedDate: Self.milliseconds(payload["signedDate"]), notificationUUID: nil, transaction: nil,
                renewal: Self.renewal(payload), digest: digest)
        default:
            return nil
        }
    }

    static func transaction(_ payload: [String: JSONValue]) -> Transaction {
        var access: [String: JSONValue] = [:]
        for key in Entitlement.accessKeys { access[key] = payload[key] }
        return Transaction(
            transactionId: payload["transactionId"]?.stringValue,
            originalTransactionId: payload["originalTransactionId"]?.stringValue,
            productId: payload["productId"]?.stringValue, environment: payload["environment"]?.stringValue,
            appAccountToken: payload["appAccountToken"]?.stringValue?.lowercased(),
            purchaseDate: milliseconds(payload["purchaseDate"]), expiresDate: milliseconds(payload["expiresDate"]),
            revocationDate: milliseconds(payload["revocationDate"]),
            revocationReason: milliseconds(payload["revocationReason"]),
            signedDate: milliseconds(payload["signedDate"]), accessMembers: access)
    }

    static func renewal(_ payload: [String: JSONValue]) -> Renewal {
        Renewal(
            originalTransactionId: payload["originalTransactionId"]?.stringValue,
            autoRenewStatus: milliseconds(payload["autoRenewStatus"]),
            autoRenewProductId: payload["autoRenewProductId"]?.stringValue,
            signedDate: milliseconds(payload["signedDate"]))
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
