/// What an App Store JWS payload is, recognised from its fields.
public enum PayloadKind: String, Sendable, CaseIterable {
    case transaction
    case renewalInfo
    case notification
    case appTransaction
    /// A Retention Messaging realtime request.
    case realtimeRequest
    case unknown

    /// Recognises the kind from the payload's own fields.
    ///
    /// Fields that only one kind carries decide; Apple's payloads do not name their type.
    public static func recognise(_ payload: [String: JSONValue]) -> PayloadKind {
        recognise { payload[$0] != nil }
    }

    /// Recognises the kind from which members are present, asking about as few as possible.
    static func recognise(has: (String) -> Bool) -> PayloadKind {
        for rule in recognitionRules where rule.alternatives.contains(where: { $0.allSatisfy(has) }) {
            return rule.kind
        }
        return .unknown
    }

    /// In order: the first kind with an alternative whose members are all present wins.
    /// Fields that only one kind carries decide; Apple's payloads do not name their type.
    static let recognitionRules: [(kind: PayloadKind, alternatives: [[String]])] = [
        (.notification, [["notificationType"]]),
        // Not deviceVerification: transactions signed on the device (jwsRepresentation) carry it too.
        (
            .appTransaction,
            [["receiptType"], ["receiptCreationDate"], ["applicationVersion"], ["originalApplicationVersion"]]
        ),
        (.transaction, [["transactionId"], ["productId", "purchaseDate"]]),
        (.realtimeRequest, [["userLocale"], ["requestIdentifier", "originalTransactionId"]]),
        (
            .renewalInfo,
            [
                ["autoRenewStatus"], ["autoRenewProductId"], ["expirationIntent"], ["isInBillingRetryPeriod"],
                ["priceIncreaseStatus"], ["gracePeriodExpiresDate"], ["renewalDate"], ["renewalPrice"],
            ]
        ),
    ]

    /// A readable name ("renewal info").
    public var displayName: String {
        switch self {
        case .transaction: "transaction"
        case .renewalInfo: "renewal info"
        case .notification: "notification"
        case .appTransaction: "app transaction"
        case .realtimeRequest: "Retention Messaging realtime request"
        case .unknown: "unknown payload"
        }
    }

    /// The payload field whose time is used to check certificate validity when the payload
    /// has no `signedDate` (Apple uses `signedDate` first, for every kind).
    public var signingTimeField: String {
        self == .appTransaction ? "receiptCreationDate" : "signedDate"
    }
}
