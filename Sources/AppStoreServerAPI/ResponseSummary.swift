internal import FoundationEssentials
package import JWSInspectCore

/// The unsigned fields of an answer that matter to someone reading it: the answer's
/// `environment`, `bundleId`, `appAppleId`, paging (`hasMore`, `revision`,
/// `paginationToken`), an order's `status`, each subscription's `status`, notification
/// `sendAttempts`. Values are Apple's, as sent (dates in milliseconds); `meaning` words them.
package struct ResponseSummary: Sendable {
    /// One field: its name as Apple spells it, its value as sent, and what it means.
    package struct Field: Sendable {
        package let name: String
        package let value: Value
        /// "valid", "Active", "2025-06-01T00:00:00Z": for tables; nil when the value says it.
        package let meaning: String?
    }

    /// A value as sent, or a list of records (subscriptions, send attempts).
    package indirect enum Value: Sendable {
        case scalar(JSONValue)
        case records([[Field]])
    }

    /// A member that Apple's documentation says holds a JWS, by its path in the answer.
    package struct SignedField: Sendable {
        /// `signedTransactions[3]`, `data[0].lastTransactions[1].signedRenewalInfo`.
        package let path: String
        package let value: JSONValue
        /// For a subscription's `signedRenewalInfo`: the path of the `signedTransactionInfo`
        /// beside it, which decides access (renewal info says what happens next, not whether
        /// the customer has access). Nil for everything else, and for renewal info alone.
        package let accessDecidedBy: String?
        /// For a subscription's `signedTransactionInfo`: what the answer holds beside it, which
        /// the access decision reads too (its renewal info, once verified; Apple's `status`).
        package let beside: Beside?

        /// A subscription's renewal info and status, beside its transaction, by path and value.
        package struct Beside: Sendable {
            package let renewal: (path: String, value: JSONValue)?
            package let status: (path: String, value: JSONValue)?
        }

        init(path: String, value: JSONValue, accessDecidedBy: String? = nil, beside: Beside? = nil) {
            self.path = path
            self.value = value
            self.accessDecidedBy = accessDecidedBy
            self.beside = beside
        }
    }

    package private(set) var fields: [Field] = []
    /// The members that hold JWS, in the answer's order: only these are verified (a
    /// `revision` or `paginationToken` may look like the start of a JWS, and is not one).
    package private(set) var signed: [SignedField] = []
    /// Signed items (JWS) the answer holds.
    package var signedCount: Int { signed.count }
    /// Look Up Order ID's `status` (0 valid, 1 invalid).
    package private(set) var orderStatus: Int64?

    init(request: FetchRequest, members: [String: JSONValue], testToken: String? = nil) {
        if let testToken {
            fields.append(Field(name: "testNotificationToken", value: .scalar(.string(testToken)), meaning: nil))
        }
        for name in ["environment", "bundleId", "appAppleId"] { add(name, members) }
        if case .integer(let status) = members["status"] {
            orderStatus = status
            let meaning =
                status == 0 ? "valid: the order holds in-app purchases of this app" : status == 1 ? "invalid" : nil
            fields.append(Field(name: "status", value: .scalar(.integer(status)), meaning: meaning))
        }
        for name in ["hasMore", "revision", "paginationToken"] { add(name, members) }
        if case .array(let transactions) = members["signedTransactions"] {
            for (index, value) in transactions.enumerated() {
                signed.append(SignedField(path: "signedTransactions[\(index)]", value: value))
            }
            fields.append(
                Field(
                    name: "signedTransactions", value: .scalar(.integer(Int64(transactions.count))),
                    meaning: nil))
        }
        for name in ["signedTransactionInfo", "signedAppTransactionInfo", "signedPayload"] {
            if let value = members[name] { signed.append(SignedField(path: name, value: value)) }
        }
        if case .array(let groups) = members["data"] { subscriptions(groups) }
        if case .array(let history) = members["notificationHistory"] {
            var records: [[Field]] = []
            for (index, item) in history.enumerated() {
                guard case .object(let object) = item else { continue }
                if let value = object["signedPayload"] {
                    signed.append(SignedField(path: "notificationHistory[\(index)].signedPayload", value: value))
                }
                records.append(attempts(object))
            }
            fields.append(
                Field(name: "notificationHistory", value: .records(records), meaning: "\(history.count) notifications"))
        }
        if members["sendAttempts"] != nil {
            fields += attempts(members)
        }
        // A mass renewal date extension's status (Get Status of Subscription Renewal Date Extensions).
        for name in ["requestIdentifier", "complete"] { add(name, members) }
        if let date = members["completeDate"] {
            fields.append(
                Field(
                    name: "completeDate", value: .scalar(date),
                    meaning: Timestamp.date(date).map { ISO8601.string($0) }))
        }
        for name in ["succeededCount", "failedCount"] { add(name, members) }
        // The Retention Messaging API's answers.
        for (name, meaning) in [("imageIdentifiers", "images"), ("messageIdentifiers", "messages")] {
            if case .array(let items) = members[name] { records(name, items, meaning: "\(items.count) \(meaning)") }
        }
        for name in ["messageIdentifier", "realtimeURL", "target", "result", "successRate", "numPending"] {
            add(name, members)
        }
        for name in ["config", "responseTimes", "failures"] {
            if case .object = members[name] { records(name, [members[name]!], meaning: nil) }
        }
    }

    /// An array of objects as records of their scalar members (the order the answer gives).
    private mutating func records(_ name: String, _ items: [JSONValue], meaning: String?) {
        let records: [[Field]] = items.compactMap { item in
            guard case .object(let object) = item else { return nil }
            return object.keys.sorted().compactMap { key in
                guard let value = object[key] else { return nil }
                return Field(name: key, value: .scalar(value), meaning: nil)
            }
        }
        fields.append(Field(name: name, value: .records(records), meaning: meaning))
    }

    private mutating func add(_ name: String, _ members: [String: JSONValue]) {
        guard let value = members[name] else { return }
        fields.append(Field(name: name, value: .scalar(value), meaning: nil))
    }

    /// `data[].lastTransactions[]`: each subscription's group, original transaction and status.
    private mutating func subscriptions(_ groups: [JSONValue]) {
        var records: [[Field]] = []
        for (groupIndex, group) in groups.enumerated() {
            guard case .object(let object) = group, case .array(let last) = object["lastTransactions"] else { continue }
            for (itemIndex, item) in last.enumerated() {
                guard case .object(let transaction) = item else { continue }
                var record: [Field] = []
                if let id = object["subscriptionGroupIdentifier"] {
                    record.append(Field(name: "subscriptionGroupIdentifier", value: .scalar(id), meaning: nil))
                }
                if let id = transaction["originalTransactionId"] {
                    record.append(Field(name: "originalTransactionId", value: .scalar(id), meaning: nil))
                }
                if let status = transaction["status"] {
                    var meaning: String?
                    if case .integer(let code) = status { meaning = Self.subscriptionStatus[code] }
                    record.append(Field(name: "status", value: .scalar(status), meaning: meaning))
                }
                let prefix = "data[\(groupIndex)].lastTransactions[\(itemIndex)]."
                var transactionPath: String?
                if let value = transaction["signedTransactionInfo"] {
                    transactionPath = prefix + "signedTransactionInfo"
                    let beside = SignedField.Beside(
                        renewal: transaction["signedRenewalInfo"].map { (prefix + "signedRenewalInfo", $0) },
                        status: transaction["status"].map { (prefix + "status", $0) })
                    signed.append(SignedField(path: prefix + "signedTransactionInfo", value: value, beside: beside))
                }
                if let value = transaction["signedRenewalInfo"] {
                    signed.append(
                        SignedField(path: prefix + "signedRenewalInfo", value: value, accessDecidedBy: transactionPath))
                }
                records.append(record)
            }
        }
        fields.append(Field(name: "data", value: .records(records), meaning: "\(records.count) subscriptions"))
    }

    /// `sendAttempts`: each attempt's date and result.
    private func attempts(_ object: [String: JSONValue]) -> [Field] {
        guard case .array(let attempts) = object["sendAttempts"] else { return [] }
        var records: [[Field]] = []
        for attempt in attempts {
            guard case .object(let item) = attempt else { continue }
            var record: [Field] = []
            if let date = item["attemptDate"] {
                let meaning = Timestamp.date(date).map { ISO8601.string($0) }
                record.append(Field(name: "attemptDate", value: .scalar(date), meaning: meaning))
            }
            if let result = item["sendAttemptResult"] {
                var meaning: String?
                if case .string(let text) = result { meaning = Self.sendAttemptResult[text] }
                record.append(Field(name: "sendAttemptResult", value: .scalar(result), meaning: meaning))
            }
            records.append(record)
        }
        let meaning = attempts.isEmpty ? "none yet" : "\(attempts.count) attempt\(attempts.count == 1 ? "" : "s")"
        return [Field(name: "sendAttempts", value: .records(records), meaning: meaning)]
    }

    /// Get All Subscription Statuses' `status`.
    static let subscriptionStatus: [Int64: String] = [
        1: "Active", 2: "Expired", 3: "in billing retry", 4: "in billing grace period", 5: "Revoked",
    ]

    /// `sendAttemptResult` values.
    static let sendAttemptResult: [String: String] = [
        "SUCCESS": "your server answered 200",
        "TIMED_OUT": "your server did not answer in time",
        "TLS_ISSUE": "TLS failed",
        "CIRCULAR_REDIRECT": "redirect loop",
        "NO_RESPONSE": "no response",
        "SOCKET_ISSUE": "connection failed",
        "UNSUPPORTED_CHARSET": "unsupported charset",
        "INVALID_RESPONSE": "invalid response",
        "PREMATURE_CLOSE": "connection closed early",
        "UNSUCCESSFUL_HTTP_RESPONSE_CODE": "your server answered with an error status",
        "OTHER": "other failure",
    ]
}
