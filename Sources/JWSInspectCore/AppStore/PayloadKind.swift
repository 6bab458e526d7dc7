/// What an App Store JWS payload is, recognised from its fields.
package enum PayloadKind: String, Sendable, CaseIterable {
    case transaction
    case renewalInfo
    case notification
    case appTransaction
    /// A Retention Messaging realtime request.
    case realtimeRequest
    /// Developer-signed (with the developer's own key, no `x5c`): an App Store Server API bearer token.
    case apiToken
    /// Developer-signed: a promotional offer signature (V2), for StoreKit.
    case promotionalOffer
    /// Developer-signed: an introductory offer eligibility token, for StoreKit.
    case introductoryOfferEligibility
    /// Developer-signed: an Advanced Commerce API in-app request, for StoreKit.
    case advancedCommerceRequest
    /// A legacy App Store receipt (PKCS#7, as `appStoreReceiptURL` holds).
    case receipt
    /// A StoreKit 1 transaction receipt's `purchase-info` (an OpenStep property list).
    case transactionReceipt
    /// A realtime response: what a developer's Get Retention Message endpoint answers.
    case realtimeResponse
    case unknown

    /// Recognises the kind from the payload's own fields.
    ///
    /// Fields that only one kind carries decide; Apple's payloads do not name their type.
    package static func recognise(_ payload: [String: JSONValue]) -> PayloadKind {
        recognise { payload[$0] != nil }
    }

    /// Recognises the kind from which members are present. Every kind's members are asked
    /// about: a payload carrying those of two kinds (a transaction with an app transaction's
    /// `receiptType`) is ambiguous, so `unknown`, never read as the first kind that matches.
    static func recognise(has: (String) -> Bool) -> PayloadKind {
        var found: PayloadKind?
        for rule in recognitionRules where rule.alternatives.contains(where: { $0.allSatisfy(has) }) {
            if found != nil { return .unknown }
            found = rule.kind
        }
        return found ?? .unknown
    }

    /// When `payload` carries the members of more than one kind: why it is read as an unknown
    /// payload (each kind with the members that recognise it). Nil otherwise.
    static func ambiguity(_ payload: [String: JSONValue]) -> String? {
        let matches = recognitionRules.compactMap { rule -> String? in
            guard let members = rule.alternatives.first(where: { $0.allSatisfy { payload[$0] != nil } }) else {
                return nil
            }
            return "\(rule.kind.displayName) (\(members.joined(separator: ", ")))"
        }
        guard matches.count > 1 else { return nil }
        return "the payload carries the members of more than one kind: " + matches.joined(separator: " and ")
            + "; it is read as an unknown payload, not guessed (--type names the kind)"
    }

    /// In order: the first kind with an alternative whose members are all present wins
    /// (each kind's alternatives are its schema's, `PayloadSchema.recognitionOrder` the order).
    static let recognitionRules: [(kind: PayloadKind, alternatives: [[String]])] =
        PayloadSchema.recognitionOrder.compactMap { kind in
            guard case .members(let alternatives) = PayloadSchema.of(kind).recognition else { return nil }
            return (kind, alternatives)
        }

    /// The developer-signed kinds, by the `aud` that names them (Apple's audiences).
    static let audiences: [(aud: String, kind: PayloadKind)] = allCases.compactMap { kind in
        guard case .audience(let aud) = PayloadSchema.of(kind).recognition else { return nil }
        return (aud, kind)
    }

    /// The kind of a developer-signed token (no `x5c`), from its `aud`: `unknown` for any other.
    static func recogniseDeveloperSigned(_ payload: [String: JSONValue]) -> PayloadKind {
        guard case .string(let aud)? = payload["aud"] else { return .unknown }
        return audiences.first { $0.aud == aud }?.kind ?? .unknown
    }

    /// Signed by the developer with their own key, for StoreKit or the App Store Server API
    /// (recognised by its audience).
    package var isDeveloperSigned: Bool {
        if case .audience = schema.recognition { return true }
        return false
    }

    /// A developer-signed kind StoreKit consumes (an offer, eligibility or commerce request):
    /// Apple refuses an `exp` in these, and requires a `nonce`.
    package var isForStoreKit: Bool { isDeveloperSigned && self != .apiToken }

    /// Everything known about the kind (`PayloadSchema`).
    package var schema: PayloadSchema { PayloadSchema.of(self) }

    /// A readable name ("renewal info").
    package var displayName: String { schema.displayName }

    /// The payload field whose time is used to check certificate validity when the payload
    /// has no `signedDate` (Apple uses `signedDate` first, for every kind).
    package var signingTimeField: String { schema.signingTimeField }
}
