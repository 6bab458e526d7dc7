/// The objects Apple's models define inside a payload (a notification's bodies, a transaction's
/// and a renewal info's `advancedCommerceInfo` and `commitmentInfo`, their items, offers,
/// refunds and price increases): each member in Apple's order with what its name means there.
/// A name means what its object says: `status` in a price increase is not a subscription's
/// status, `period` in an offer is not the subscription's period.
extension PayloadDisplay {
    /// An object Apple's models define: its documented members, each placed and named.
    final class Shape: Sendable {
        let members: [String: Documented]

        init(_ members: [String: Documented]) { self.members = members }

        /// `list` in Apple's order.
        convenience init(_ list: [Member]) {
            var members: [String: Documented] = [:]
            for (place, member) in list.enumerated() where members[member.key] == nil {
                members[member.key] = Documented(
                    place: place, name: member.name, shape: member.shape, isArray: member.isArray)
            }
            self.init(members)
        }
    }

    /// One member of a `Shape`, before it has its place.
    struct Member {
        let key: String
        let name: FieldName
        var shape: Shape?
        var isArray = false

        /// A member shown as signed (a date when its name ends in `Date`).
        static func plain(_ key: String) -> Member { Member(key: key, name: FieldName(key, .none, .none)) }
        /// Milliseconds since 1970, whatever its name.
        static func milliseconds(_ key: String) -> Member {
            Member(key: key, name: FieldName(key, .none, .none, timestamp: true))
        }
        /// Milliunits of the payload's currency.
        static func money(_ key: String) -> Member { Member(key: key, name: FieldName(key, .none, .price)) }
        /// A decimal fraction shown as a percentage ("0.15" is 15%).
        static func rate(_ key: String) -> Member { Member(key: key, name: FieldName(key, .none, .rate)) }
        /// A value from `table`; any other is flagged.
        static func strings(_ key: String, _ table: [String: String]) -> Member {
            Member(key: key, name: FieldName(key, FieldName.strings(table), .none))
        }
        static func integers(_ key: String, _ table: [Int64: String]) -> Member {
            Member(key: key, name: FieldName(key, FieldName.integers(table), .none))
        }
        /// An object of `shape`.
        static func object(_ key: String, _ shape: Shape) -> Member {
            Member(key: key, name: FieldName(key, .none, .none), shape: shape)
        }
        /// An array of objects of `shape`.
        static func objects(_ key: String, _ shape: Shape) -> Member {
            Member(key: key, name: FieldName(key, .none, .none), shape: shape, isArray: true)
        }
    }

    /// The objects a payload of `kind` holds, by member name.
    static func shapes(_ kind: PayloadKind) -> [String: Shape] {
        switch kind {
        case .notification: Shapes.bodies
        case .transaction: Shapes.transaction
        case .renewalInfo: Shapes.renewalInfo
        case .realtimeResponse: Shapes.realtimeResponse
        default: [:]
        }
    }

    /// Apple's models (app-store-server-library 3.1.2; App Store Server API 1.21):
    /// `AdvancedCommerceTransactionInfo`, `AdvancedCommerceTransactionItem`,
    /// `AdvancedCommerceRenewalInfo`, `AdvancedCommerceRenewalItem`, `AdvancedCommerceDescriptors`,
    /// `AdvancedCommerceOffer`, `AdvancedCommerceRefund`, `AdvancedCommercePriceIncreaseInfo`,
    /// `TransactionCommitmentInfo`, `RenewalCommitmentInfo`, and their enumerations.
    private enum Shapes {
        static let bodies: [String: Shape] = Dictionary(
            NotificationBody.all.map { ($0.name, Shape(places($0.fields))) }, uniquingKeysWith: { first, _ in first })

        static let transaction: [String: Shape] = [
            "advancedCommerceInfo": Shape([
                .plain("requestReferenceId"), .object("descriptors", descriptors),
                .objects("items", transactionItem), .strings("period", periods), .plain("taxCode"),
                .money("taxExclusivePrice"), .money("estimatedTax"), .rate("taxRate"),
            ]),
            "commitmentInfo": Shape([
                .plain("billingPeriodNumber"), .plain("totalBillingPeriods"), .plain("commitmentExpiresDate"),
                .money("commitmentPrice"),
            ]),
        ]

        static let renewalInfo: [String: Shape] = [
            "advancedCommerceInfo": Shape([
                .plain("requestReferenceId"), .plain("consistencyToken"), .object("descriptors", descriptors),
                .objects("items", renewalItem), .strings("period", periods), .plain("taxCode"),
            ]),
            "commitmentInfo": Shape([
                .plain("commitmentAutoRenewProductId"),
                .integers("commitmentAutoRenewStatus", FieldMeanings.integerEnums["autoRenewStatus"] ?? [:]),
                .strings(
                    "commitmentRenewalBillingPlanType", FieldMeanings.stringEnums["renewalBillingPlanType"] ?? [:]),
                .plain("commitmentRenewalDate"), .money("commitmentRenewalPrice"),
            ]),
        ]

        /// Retention Messaging's `RealtimeResponseBody` options (`RealtimeResponseModel`).
        static let realtimeResponse: [String: Shape] = [
            "message": Shape([.plain("messageIdentifier")]),
            "alternateProduct": Shape([
                .plain("messageIdentifier"), .plain("productId"),
                .strings("billingPlanType", FieldMeanings.stringEnums["billingPlanType"] ?? [:]),
            ]),
            "promotionalOffer": Shape([
                .plain("messageIdentifier"), .plain("promotionalOfferSignatureV2"),
                .object(
                    "promotionalOfferSignatureV1",
                    Shape([
                        .plain("productId"), .plain("offerIdentifier"), .plain("keyId"), .plain("nonce"),
                        .milliseconds("timestamp"), .plain("appAccountToken"), .plain("encodedSignature"),
                    ])),
            ]),
            "advancedCommerceInfo": Shape([.plain("messageIdentifier"), .plain("advancedCommerceData")]),
        ]

        static let descriptors = Shape([.plain("displayName"), .plain("description")])

        static let offer = Shape([
            .strings("reason", offerReasons), .strings("period", offerPeriods), .plain("periodCount"), .money("price"),
        ])

        static let transactionItem = Shape([
            .plain("SKU"), .plain("displayName"), .plain("description"), .money("price"), .object("offer", offer),
            .objects("refunds", refund), .plain("revocationDate"),
        ])

        static let renewalItem = Shape([
            .plain("SKU"), .plain("displayName"), .plain("description"), .money("price"), .object("offer", offer),
            .object("priceIncreaseInfo", priceIncrease),
        ])

        static let refund = Shape([
            .money("refundAmount"), .plain("refundDate"), .strings("refundReason", refundReasons),
            .strings("refundType", refundTypes),
        ])

        static let priceIncrease = Shape([
            .strings("status", priceIncreaseStatuses), .money("price"), .plain("dependentSKUs"),
        ])

        /// `AdvancedCommercePeriod`: how often the subscription bills.
        static let periods = [
            "P1W": "every week", "P1M": "every month", "P2M": "every 2 months", "P3M": "every 3 months",
            "P6M": "every 6 months", "P1Y": "every year",
        ]
        /// `AdvancedCommerceOfferPeriod`: how long one period of the offer lasts.
        static let offerPeriods = [
            "P3D": "3 days", "P1W": "1 week", "P2W": "2 weeks", "P1M": "1 month", "P2M": "2 months",
            "P3M": "3 months", "P6M": "6 months", "P9M": "9 months", "P1Y": "1 year",
        ]
        static let offerReasons = [
            "ACQUISITION": "to win a new customer", "WIN_BACK": "to win back a former subscriber",
            "RETENTION": "to keep a current subscriber",
        ]
        static let refundReasons = [
            "UNINTENDED_PURCHASE": "unintended purchase", "FULFILLMENT_ISSUE": "fulfillment issue",
            "UNSATISFIED_WITH_PURCHASE": "unsatisfied with purchase", "LEGAL": "legal", "OTHER": "other",
            "MODIFY_ITEMS_REFUND": "refunded when the subscription's items changed",
            "SIMULATE_REFUND_DECLINE": "a simulated refund decline (Sandbox)",
        ]
        static let refundTypes = [
            "FULL": "the whole price", "PRORATED": "prorated for the time not used", "CUSTOM": "an amount chosen",
        ]
        static let priceIncreaseStatuses = [
            "SCHEDULED": "scheduled", "PENDING": "waiting for the customer to accept",
            "ACCEPTED": "accepted by the customer",
        ]
    }
}
