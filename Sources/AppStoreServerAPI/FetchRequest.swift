package import FoundationEssentials
internal import JWSInspectCore

/// What `jwsinspect fetch` asks the App Store Server API for: one endpoint, with its ID and filters.
package enum FetchRequest: Sendable, Equatable {
    /// Get Transaction Info: `GET /inApps/v1/transactions/{id}`.
    case transaction(String)
    /// Get Transaction History (v2), every page: `GET /inApps/v2/history/{id}`.
    case history(String, HistoryFilters)
    /// Get All Subscription Statuses: `GET /inApps/v1/subscriptions/{id}` (`status` filters).
    case subscriptions(String, statuses: [Int])
    /// Look Up Order ID (Production only): `GET /inApps/v1/lookup/{orderId}`.
    case order(String)
    /// Get Refund History (v2), every page: `GET /inApps/v2/refund/lookup/{id}`.
    case refunds(String)
    /// Get App Transaction Info: `GET /inApps/v1/transactions/appTransactions/{id}`.
    case appTransaction(String)
    /// Get Notification History, every page: `POST /inApps/v1/notifications/history`.
    case notifications(NotificationFilters)
    /// Request a Test Notification, then Get Test Notification Status until a send attempt
    /// is reported or `wait` seconds have passed.
    case testNotification(wait: Double)
    /// Get Test Notification Status of a test notification requested before, by its token:
    /// `GET /inApps/v1/notifications/test/{testNotificationToken}`.
    case testNotificationStatus(String)
    /// Get Status of Subscription Renewal Date Extensions, of a mass extension requested before:
    /// `GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`. Unsigned.
    case extensionStatus(product: String, requestIdentifier: String)
    /// The Retention Messaging API's reads: the image list, the message list, a product's
    /// default message for a locale, the realtime URL, a performance test's result. Unsigned.
    case retention(RetentionRead)

    /// The subcommand's word for it (`fetch history`).
    package var name: String {
        switch self {
        case .transaction: "transaction"
        case .history: "history"
        case .subscriptions: "subscriptions"
        case .order: "order"
        case .refunds: "refunds"
        case .appTransaction: "app-transaction"
        case .notifications: "notifications"
        case .testNotification: "test-notification"
        case .testNotificationStatus: "test-notification-status"
        case .extensionStatus: "extension-status"
        case .retention(let read): read.name
        }
    }

    /// The ID asked about, if any.
    package var id: String? {
        switch self {
        case .transaction(let id), .history(let id, _), .subscriptions(let id, _), .order(let id), .refunds(let id),
            .appTransaction(let id), .testNotificationStatus(let id):
            id
        case .extensionStatus(_, let requestIdentifier): requestIdentifier
        case .retention(.defaultMessage(let product, let locale)): product + " " + locale
        case .retention(.performanceTest(let requestID)): requestID
        case .retention: nil
        case .notifications, .testNotification: nil
        }
    }

    /// Why a 404 with `code` means `environment` has nothing for this request, when it does
    /// (then it is nothing found there, and the next environment is asked); nil for any other code.
    func notFoundReason(_ code: Int64, in environment: ServerEnvironment) -> String? {
        let here = environment.rawValue
        switch (code, self) {
        case (APIErrorCodes.transactionNotFound, _):
            return "\(id ?? "the ID") is not a \(here) transaction"
        case (APIErrorCodes.testNotificationNotFound, .testNotificationStatus):
            return "no \(here) test notification has the token \(id ?? "")"
        case (APIErrorCodes.statusRequestNotFound, _) where !answersSignedData:
            return "no \(here) renewal date extension request \(id ?? "")"
        case (_, _) where APIErrorCodes.retentionNotFound.contains(code) && !answersSignedData:
            return "\(here) has no \(name.dropFirst("retention-".count))" + (id.map { " for \($0)" } ?? "")
        default:
            return nil
        }
    }

    /// Whether its answer holds signed data (an answer without is nothing found); a mass
    /// extension's status is unsigned counts.
    package var answersSignedData: Bool {
        switch self {
        case .extensionStatus, .retention: false
        default: true
        }
    }

    /// Whether the answer comes in pages (`revision` or `paginationToken` while `hasMore`).
    package var isPaged: Bool {
        switch self {
        case .history, .refunds, .notifications: true
        default: false
        }
    }

    /// Whether the endpoint exists in Production only (Look Up Order ID).
    package var isProductionOnly: Bool {
        if case .order = self { return true }
        return false
    }

    /// The first (or only) call, before any page token.
    func call(now: Date) -> APICall {
        switch self {
        case .transaction(let id): APICall(method: "GET", path: "/inApps/v1/transactions/" + APICall.segment(id))
        case .history(let id, let filters):
            APICall(method: "GET", path: "/inApps/v2/history/" + APICall.segment(id), query: filters.query)
        case .subscriptions(let id, let statuses):
            APICall(
                method: "GET", path: "/inApps/v1/subscriptions/" + APICall.segment(id),
                query: statuses.map { ("status", String($0)) })
        case .order(let id): APICall(method: "GET", path: "/inApps/v1/lookup/" + APICall.segment(id))
        case .refunds(let id): APICall(method: "GET", path: "/inApps/v2/refund/lookup/" + APICall.segment(id))
        case .appTransaction(let id):
            APICall(method: "GET", path: "/inApps/v1/transactions/appTransactions/" + APICall.segment(id))
        case .notifications(let filters):
            APICall(method: "POST", path: "/inApps/v1/notifications/history", body: filters.body(now: now))
        case .testNotification: APICall(method: "POST", path: "/inApps/v1/notifications/test")
        case .testNotificationStatus(let token):
            APICall(method: "GET", path: "/inApps/v1/notifications/test/" + APICall.segment(token))
        case .retention(let read): APICall(method: "GET", path: read.path)
        case .extensionStatus(let product, let requestIdentifier):
            APICall(
                method: "GET",
                path: "/inApps/v1/subscriptions/extend/mass/" + APICall.segment(product) + "/"
                    + APICall.segment(requestIdentifier))
        }
    }

    /// The longest page token (`revision`, `paginationToken`) taken, in bytes: Apple's are tens
    /// of bytes; each is sent back in a URL.
    package static let pageTokenLimit = 4096

    /// What follows a page: nothing, the call for the next page (and the token it carries), or
    /// why the answer cannot say (`hasMore` that is not a boolean, or true without a usable token).
    enum NextPage {
        case none
        case call(APICall, token: String)
        case malformed(String)
    }

    /// The page after the one that answered `answer`.
    func nextPage(after call: APICall, answer: [String: JSONValue]) -> NextPage {
        guard isPaged else { return .none }
        let member = isNotifications ? "paginationToken" : "revision"
        switch answer["hasMore"] {
        case .bool(false)?: return .none
        case .bool(true)?: break
        case nil: return .malformed("the answer has no hasMore, so whether pages follow is unknown")
        case let value?: return .malformed("hasMore is \(value.kindDescription), not true or false")
        }
        guard case .string(let token) = answer[member], !token.isEmpty else {
            let given =
                answer[member].map { $0 == .string("") ? "an empty \(member)" : "\($0.kindDescription) as \(member)" }
                ?? "no \(member)"
            return .malformed("hasMore is true with \(given) to ask for the next page: the answer would end cut short")
        }
        guard token.utf8.count <= Self.pageTokenLimit else {
            return .malformed(
                "its \(member) is \(token.utf8.count) bytes, over the \(Self.pageTokenLimit) a page token may be")
        }
        var next = call
        if isNotifications {
            next.query = [("paginationToken", token)]
        } else {
            next.query = call.query.filter { $0.0 != "revision" } + [("revision", token)]
        }
        return .call(next, token: token)
    }

    private var isNotifications: Bool {
        if case .notifications = self { return true }
        return false
    }
}

/// Get Transaction History's filters; Apple wants the same ones on every page.
package struct HistoryFilters: Sendable, Equatable {
    package var startDate: Date?
    package var endDate: Date?
    package var productIDs: [String] = []
    /// `AUTO_RENEWABLE`, `NON_RENEWABLE`, `CONSUMABLE`, `NON_CONSUMABLE`.
    package var productTypes: [String] = []
    /// `ASCENDING` or `DESCENDING`.
    package var sort: String?
    /// true: only revoked transactions; false: only those not revoked.
    package var revoked: Bool?
    package var subscriptionGroupIDs: [String] = []
    /// `FAMILY_SHARED` or `PURCHASED`.
    package var ownershipType: String?

    package init() {}

    var query: [(String, String)] {
        var query: [(String, String)] = []
        if let startDate { query.append(("startDate", String(APICall.milliseconds(startDate)))) }
        if let endDate { query.append(("endDate", String(APICall.milliseconds(endDate)))) }
        query += productIDs.map { ("productId", $0) }
        query += productTypes.map { ("productType", $0) }
        if let sort { query.append(("sort", sort)) }
        query += subscriptionGroupIDs.map { ("subscriptionGroupIdentifier", $0) }
        if let ownershipType { query.append(("inAppOwnershipType", ownershipType)) }
        if let revoked { query.append(("revoked", revoked ? "true" : "false")) }
        return query
    }
}

/// Get Notification History's request body.
package struct NotificationFilters: Sendable, Equatable {
    package var since: Date
    /// Default: now.
    package var until: Date?
    package var transactionID: String?
    package var notificationType: String?
    package var notificationSubtype: String?
    package var onlyFailures = false

    package init(since: Date) {
        self.since = since
    }

    /// The JSON body, members in the order Apple's documentation lists them.
    func body(now: Date) -> [UInt8] {
        var members: [(String, DeveloperToken.Value)] = [
            ("startDate", .integer(APICall.milliseconds(since))),
            ("endDate", .integer(APICall.milliseconds(until ?? now))),
        ]
        if let notificationType { members.append(("notificationType", .string(notificationType))) }
        if let notificationSubtype { members.append(("notificationSubtype", .string(notificationSubtype))) }
        if let transactionID { members.append(("transactionId", .string(transactionID))) }
        if onlyFailures { members.append(("onlyFailures", .bool(true))) }
        return DeveloperToken.json(members)
    }
}

/// One HTTP call to the API: method, path, query and JSON body (the base URL comes later).
package struct APICall: Sendable {
    package var method: String
    package var path: String
    package var query: [(String, String)] = []
    package var body: [UInt8]?

    init(method: String, path: String, query: [(String, String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
    }

    /// The path and query, percent-encoded: `/inApps/v2/history/1?revision=abc`.
    package var pathAndQuery: String {
        guard !query.isEmpty else { return path }
        return path + "?" + query.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
    }

    /// A path segment, percent-encoded (IDs are checked before, this is belt and braces).
    static func segment(_ text: String) -> String { encode(text) }

    /// Percent-encodes all but RFC 3986's unreserved characters.
    static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                result += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return result
    }

    /// UNIX milliseconds, whole, as Apple's JSON dates are.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}

/// A read of the Retention Messaging API (what a realtime URL answers with is the app's own).
package enum RetentionRead: Sendable, Equatable {
    /// Get Image List: `GET /inApps/v1/messaging/image/list`.
    case images
    /// Get Message List: `GET /inApps/v1/messaging/message/list`.
    case messages
    /// Get Default Message: `GET /inApps/v1/messaging/default/{productId}/{locale}`.
    case defaultMessage(product: String, locale: String)
    /// Get Realtime URL: `GET /inApps/v1/messaging/realtime/url`.
    case realtimeURL
    /// Get Performance Test Results: `GET /inApps/v1/messaging/performanceTest/result/{requestId}`.
    case performanceTest(String)

    /// fetch's word for it.
    package var name: String {
        switch self {
        case .images: "retention-images"
        case .messages: "retention-messages"
        case .defaultMessage: "retention-default"
        case .realtimeURL: "retention-realtime-url"
        case .performanceTest: "retention-performance-test"
        }
    }

    var path: String {
        switch self {
        case .images: "/inApps/v1/messaging/image/list"
        case .messages: "/inApps/v1/messaging/message/list"
        case .defaultMessage(let product, let locale):
            "/inApps/v1/messaging/default/" + APICall.segment(product) + "/" + APICall.segment(locale)
        case .realtimeURL: "/inApps/v1/messaging/realtime/url"
        case .performanceTest(let requestID):
            "/inApps/v1/messaging/performanceTest/result/" + APICall.segment(requestID)
        }
    }
}
