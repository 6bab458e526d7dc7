// The JSON types Apple uses for App Store payload fields, so that `JSONValue.member` decodes
// each member as its expected type first (every failed attempt throws, and throwing is costly).

extension JSONValue {
    enum ExpectedKind { case string, integer, bool, object }

    private static let integerFields: Set<String> = [
        "price", "renewalPrice", "quantity", "appAppleId", "status", "offerType", "revocationReason", "autoRenewStatus",
        "expirationIntent", "priceIncreaseStatus", "revocationPercentage", "succeededCount", "failedCount",
    ]
    private static let boolFields: Set<String> = ["isUpgraded", "isInBillingRetryPeriod"]
    private static let objectFields = Set(NotificationBody.names + ["advancedCommerceInfo", "commitmentInfo"])

    static func expectedKind(of name: String) -> ExpectedKind {
        if PayloadFields.isTimestamp(name) || integerFields.contains(name) { return .integer }
        if boolFields.contains(name) { return .bool }
        if objectFields.contains(name) { return .object }
        return .string
    }
}
