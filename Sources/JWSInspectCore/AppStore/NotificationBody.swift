/// A member of an App Store Server Notification payload that carries its content (`data`,
/// `summary`, `externalPurchaseToken`, `appData`; not the HTTP body `{"signedPayload": …}`),
/// the fields Apple documents in it and the JWS nested in it.
///
/// The one list of them: verification (nested tokens), the members decoded for speed, payload
/// decoding and display, identity, summaries and the help text all derive from `all`.
package struct NotificationBody: Sendable {
    /// The member's name in the notification payload ("data").
    package let name: String
    /// The fields Apple documents in it, in documentation order (its nested JWS last).
    package let fields: [String]
    /// The JWS nested in it, in documentation order.
    package let nestedTokens: [NestedToken]

    /// A JWS nested in a notification body, and the kind of payload it holds.
    package struct NestedToken: Sendable, Equatable {
        /// The body holding it ("data").
        package let body: String
        /// Its member in the body ("signedTransactionInfo").
        package let member: String
        /// What its payload is: the kind follows from where it sits.
        package let kind: PayloadKind
        /// "data.signedTransactionInfo": where it sits, as results name it.
        package let path: String

        init(body: String, member: String, kind: PayloadKind) {
            self.body = body
            self.member = member
            self.kind = kind
            self.path = "\(body).\(member)"
        }
    }

    private init(_ name: String, fields: [String], nested: [(member: String, kind: PayloadKind)] = []) {
        self.name = name
        self.fields = fields + nested.map(\.member)
        self.nestedTokens = nested.map { NestedToken(body: name, member: $0.member, kind: $0.kind) }
    }

    /// Every body, in the order a notification's identity and summary look for them: the first
    /// present decides.
    package static let all: [NotificationBody] = [
        NotificationBody(
            "data",
            fields: ["appAppleId", "bundleId", "bundleVersion", "environment", "status", "consumptionRequestReason"],
            nested: [("signedTransactionInfo", .transaction), ("signedRenewalInfo", .renewalInfo)]),
        NotificationBody(
            "summary",
            fields: [
                "environment", "appAppleId", "bundleId", "productId", "requestIdentifier", "storefrontCountryCodes",
                "succeededCount", "failedCount",
            ]),
        NotificationBody(
            "externalPurchaseToken",
            fields: [
                "externalPurchaseId", "tokenCreationDate", "appAppleId", "bundleId", "tokenType", "tokenExpirationDate",
            ]),
        NotificationBody(
            "appData", fields: ["appAppleId", "bundleId", "environment"],
            nested: [("signedAppTransactionInfo", .appTransaction)]),
    ]

    /// The bodies' names, in `all`'s order: "data", "summary", "externalPurchaseToken", "appData".
    package static let names = all.map(\.name)

    /// Every JWS a notification nests, in `all`'s order: decoded and verified under the notification.
    package static let nestedTokens = all.flatMap(\.nestedTokens)

    /// The body named `name`, if it is one.
    package static func named(_ name: String) -> NotificationBody? {
        all.first { $0.name == name }
    }
}
