package import FoundationEssentials

/// `jwsinspect mint timeline`: the webhook log of one monthly subscription's life, as a backend
/// receives it, for `jwsinspect timeline` and a backend's own tests of its webhook handling.
///
/// The life, from 65 days before `now`: a purchase (SUBSCRIBED/INITIAL_BUY), a renewal
/// (DID_RENEW), a refund of the first month (REFUND, 45 days in), a failed renewal in the billing
/// grace period (DID_FAIL_TO_RENEW/GRACE_PERIOD, day 60), and its recovery two days later
/// (DID_RENEW/BILLING_RECOVERY): the subscription grants access for 27 more days.
///
/// Delivered as Apple delivers (`deliveries(clean: false)`): the renewal twice (a retry after a
/// timeout) and the recovery before the failure it recovers from. `clean` delivers each once,
/// in signing order.
package enum MintTimeline {
    /// One notification of the life.
    package struct Step: Sendable {
        package let notificationType: String
        package let subtype: String?
        package let notificationUUID: String
        /// The notification's `signedDate`.
        package let signed: Date
        /// The transaction it nests: its ID, purchase and expiry.
        package let transactionID: String
        package let purchased: Date
        package let expires: Date
        /// The subscription's first purchase (`originalPurchaseDate`).
        package let originalPurchased: Date
    }

    /// The subscription's `originalTransactionId` (its first transaction's ID).
    package static let originalTransactionID = "2000000900000001"

    /// The life's notifications in signing order, dated around `now` (whole milliseconds).
    package static func steps(now: Date) -> [Step] {
        let day: TimeInterval = 86_400
        let start = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1_000).rounded(.down) / 1_000 - 65 * day)
        let at = { (days: Double) in start.addingTimeInterval(days * day) }
        func step(_ type: String, _ subtype: String?, _ number: Int, signed: Double, transaction: Int, from: Double)
            -> Step
        {
            Step(
                notificationType: type, subtype: subtype,
                notificationUUID: "6c5f1e9a-0000-4000-8000-00000000000\(number)", signed: at(signed),
                transactionID: "200000090000000\(transaction)", purchased: at(from), expires: at(from + 30),
                originalPurchased: start)
        }
        return [
            step("SUBSCRIBED", "INITIAL_BUY", 1, signed: 0, transaction: 1, from: 0),
            step("DID_RENEW", nil, 2, signed: 30, transaction: 2, from: 30),
            step("REFUND", nil, 3, signed: 45, transaction: 1, from: 0),
            step("DID_FAIL_TO_RENEW", "GRACE_PERIOD", 4, signed: 60, transaction: 2, from: 30),
            step("DID_RENEW", "BILLING_RECOVERY", 5, signed: 62, transaction: 3, from: 62),
        ]
    }

    /// The order the steps arrive in (indices into `steps`): as Apple delivers, with a retry and
    /// a reordering, or `clean`: once each, in signing order.
    package static func deliveries(clean: Bool) -> [Int] {
        clean ? [0, 1, 2, 3, 4] : [0, 1, 1, 2, 4, 3]
    }
}
