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
        func has(_ keys: String...) -> Bool { keys.contains { payload[$0] != nil } }
        if has("notificationType") { return .notification }
        if has("receiptType", "receiptCreationDate", "applicationVersion", "originalApplicationVersion", "deviceVerification") {
            return .appTransaction
        }
        if has("transactionId") || (has("productId") && has("purchaseDate")) { return .transaction }
        if has("userLocale") || (has("requestIdentifier") && has("originalTransactionId")) { return .realtimeRequest }
        if has("autoRenewStatus", "autoRenewProductId", "expirationIntent", "isInBillingRetryPeriod",
               "priceIncreaseStatus", "gracePeriodExpiresDate", "renewalDate", "renewalPrice") {
            return .renewalInfo
        }
        return .unknown
    }

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

    /// The payload field whose time is used to check certificate validity.
    public var signingTimeField: String {
        self == .appTransaction ? "receiptCreationDate" : "signedDate"
    }
}
