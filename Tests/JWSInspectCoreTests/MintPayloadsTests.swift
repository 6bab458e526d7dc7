import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

/// `MintPayloads`: the App Store payloads `jwsinspect mint` signs, and its `--set` and `--from`.
@Suite struct MintPayloadsTests {
    /// 2025-06-01T00:00:00.123Z: milliseconds that are not zero, to see signedDate keep them.
    let now = Date(timeIntervalSince1970: 1_748_736_000.123)
    var nowMilliseconds: Int64 { 1_748_736_000_123 }
    var context: MintContext { MintContext(now: now) }

    static let payloadKinds: [(MintKind, PayloadKind)] = [
        (.transaction, .transaction), (.renewalInfo, .renewalInfo), (.notification, .notification),
        (.appTransaction, .appTransaction), (.realtimeRequest, .realtimeRequest),
    ]

    /// Documented fields a default (monthly subscription, just bought) payload leaves out, and why.
    static let specialCases: [String: String] = [
        "revocationReason": "only in a refunded or revoked transaction (REFUND, REVOKE)",
        "revocationDate": "only in a refunded or revoked transaction (REFUND, REVOKE)",
        "revocationType": "only in a refunded or revoked transaction (REFUND, REVOKE)",
        "revocationPercentage": "only in a refunded transaction",
        "isUpgraded": "Apple sends it only when true, on the transaction upgraded from",
        "offerType": "only when an offer applies",
        "offerIdentifier": "only when an offer applies",
        "offerDiscountType": "only when an offer applies",
        "offerPeriod": "only when an offer applies",
        "billingPlanType": "only for subscriptions with a commitment plan",
        "renewalBillingPlanType": "only for subscriptions with a commitment plan",
        "commitmentInfo": "only for subscriptions with a commitment plan",
        "previousOriginalTransactionId": "only on a transaction that continues an earlier purchase",
        "advancedCommerceInfo": "only for Advanced Commerce API products",
        "expirationIntent": "only once the subscription expired (EXPIRED, DID_FAIL_TO_RENEW)",
        "priceIncreaseStatus": "only with a price increase (PRICE_INCREASE)",
        "gracePeriodExpiresDate": "only in a billing grace period (DID_FAIL_TO_RENEW GRACE_PERIOD)",
        "eligibleWinBackOfferIds": "only for an expired subscriber eligible for win-back offers",
        "preorderDate": "only for an app that was preordered",
    ]

    func decoded(_ object: OrderedJSON.Object) throws -> [String: JSONValue] {
        guard case .object(let members) = try JSONValue.decode(object.jsonBytes) else {
            Issue.record("not a JSON object")
            return [:]
        }
        return members
    }

    func integer(_ object: OrderedJSON.Object, _ key: String) -> Int64? {
        if case .integer(let value)? = object[key] { return value }
        return nil
    }

    func string(_ object: OrderedJSON.Object, _ key: String) -> String? {
        if case .string(let value)? = object[key] { return value }
        return nil
    }

    @Test(arguments: payloadKinds)
    func everyDocumentedFieldIsThereAndTheKindIsRecognised(kind: MintKind, payloadKind: PayloadKind) throws {
        let payload = MintPayloads.payload(kind, context: context)
        let documented = PayloadFields.documented(for: payloadKind).filter {
            Self.specialCases[$0] == nil && !NotificationBody.names.contains($0)
        }
        for field in documented {
            #expect(payload[field] != nil, "\(kind.rawValue) lacks \(field)")
        }
        // Nothing undocumented, and in documented order.
        let order = PayloadFields.documented(for: payloadKind)
        #expect(payload.keys.allSatisfy(order.contains))
        #expect(payload.keys == order.filter(payload.keys.contains))
        #expect(PayloadKind.recognise(try decoded(payload)) == payloadKind)
    }

    @Test func datesAndIDsAreConsistent() {
        let transaction = MintPayloads.payload(.transaction, context: context)
        let renewal = MintPayloads.payload(.renewalInfo, context: context)
        let app = MintPayloads.payload(.appTransaction, context: context)
        let realtime = MintPayloads.payload(.realtimeRequest, context: context)
        let notification = MintPayloads.payload(.notification, context: context)
        for payload in [transaction, renewal, realtime, notification] {
            #expect(integer(payload, "signedDate") == nowMilliseconds)
        }
        #expect(integer(app, "receiptCreationDate") == nowMilliseconds)
        let purchase = integer(transaction, "purchaseDate") ?? .max
        let expires = integer(transaction, "expiresDate") ?? .min
        #expect(purchase < nowMilliseconds && nowMilliseconds < expires)
        #expect((28...31).contains((expires - purchase) / 86_400_000), "a monthly subscription")
        #expect(integer(transaction, "originalPurchaseDate") == purchase)
        #expect(integer(renewal, "renewalDate") == expires)
        #expect(integer(renewal, "recentSubscriptionStartDate") == purchase)
        #expect((integer(app, "originalPurchaseDate") ?? .max) <= purchase)
        let original = string(transaction, "originalTransactionId")
        #expect(string(transaction, "transactionId") == original)
        #expect(string(renewal, "originalTransactionId") == original)
        #expect(string(realtime, "originalTransactionId") == original)
        for payload in [transaction, renewal] {
            #expect(string(payload, "appTransactionId") == string(app, "appTransactionId"))
        }
        #expect(string(transaction, "productId") == string(renewal, "autoRenewProductId"))
        #expect(string(transaction, "productId") == string(realtime, "productId"))
        #expect(integer(transaction, "price") == 9990 && string(transaction, "currency") == "USD")
        #expect(string(transaction, "storefront") == "USA" && string(transaction, "storefrontId") == "143441")
        #expect(string(transaction, "type") == "Auto-Renewable Subscription")
        #expect(integer(app, "appAppleId") == 1_234_567_890)
    }

    @Test func contextNamesAppAndEnvironment() {
        let production = MintContext(bundleID: "org.test.x", environment: "Production", now: now)
        let transaction = MintPayloads.payload(.transaction, context: production)
        #expect(string(transaction, "bundleId") == "org.test.x" && string(transaction, "environment") == "Production")
        #expect(string(MintPayloads.payload(.appTransaction, context: production), "receiptType") == "Production")
    }

    @Test func appTransactionDeviceVerificationMatches() throws {
        let app = MintPayloads.payload(.appTransaction, context: context)
        let device = try #require(UUID(uuidString: MintPayloads.deviceVerificationID))
        let nonce = try #require(string(app, "deviceVerificationNonce"))
        #expect(string(app, "deviceVerification") == DeviceVerification.expected(nonce: nonce, deviceID: device))
    }

    @Test func notificationHasItsBodyAndUUID() throws {
        let notification = MintPayloads.payload(.notification, context: context)
        #expect(
            string(notification, "notificationType") == "SUBSCRIBED" && string(notification, "subtype") == "INITIAL_BUY"
        )
        #expect(string(notification, "version") == "2.0")
        let uuid = try #require(string(notification, "notificationUUID"))
        #expect(UUID(uuidString: uuid) != nil && Array(uuid)[14] == "4")
        guard case .object(let data)? = notification["data"] else {
            Issue.record("no data")
            return
        }
        #expect(data.keys == ["appAppleId", "bundleId", "bundleVersion", "environment", "status"])
        #expect(data["status"] == .integer(1))
        let other = MintPayloads.payload(.notification, context: context)
        #expect(string(other, "notificationUUID") != uuid)
    }

    /// Nested paths are ones `NotificationBody` lists, for the kind it lists there.
    @Test(
        arguments: [
            ("SUBSCRIBED", nil, ["data.signedTransactionInfo", "data.signedRenewalInfo"]),
            ("TEST", nil, []), ("ONE_TIME_CHARGE", nil, ["data.signedTransactionInfo"]),
            ("RESCIND_CONSENT", nil, ["appData.signedAppTransactionInfo"]), ("RENEWAL_EXTENSION", nil, []),
            ("RENEWAL_EXTENSION", "FAILURE", ["data.signedTransactionInfo", "data.signedRenewalInfo"]),
            ("EXTERNAL_PURCHASE_TOKEN", nil, []),
        ] as [(String, String?, [String])])
    func nestedKindsFollowTheBody(type: String, subtype: String?, paths: [String]) throws {
        let nested = MintPayloads.nestedKinds(notificationType: type, subtype: subtype)
        #expect(nested.map { $0.path.joined(separator: ".") } == paths)
        let kinds = Dictionary(uniqueKeysWithValues: Self.payloadKinds.map { ($0.0, $0.1) })
        for (path, kind) in nested {
            let token = NotificationBody.nestedTokens.first { $0.path == path.joined(separator: ".") }
            #expect(token?.kind == kinds[kind])
        }
        let context = MintContext(now: now, notificationType: type, subtype: subtype)
        let notification = MintPayloads.payload(.notification, context: context)
        let body = MintPayloads.body(notificationType: type, subtype: subtype)
        let fields = try #require(NotificationBody.named(body)?.fields)
        guard case .object(let members)? = notification[body] else {
            Issue.record("\(type): no \(body)")
            return
        }
        #expect(members.keys.allSatisfy(fields.contains))
        #expect(PayloadKind.recognise(try decoded(notification)) == .notification)
    }

    @Test func expiredNotificationNestsAnExpiredSubscription() {
        let expired = MintContext(now: now, notificationType: "EXPIRED")
        let transaction = MintPayloads.payload(.transaction, context: expired)
        let renewal = MintPayloads.payload(.renewalInfo, context: expired)
        let notification = MintPayloads.payload(.notification, context: expired)
        #expect((integer(transaction, "expiresDate") ?? .max) < nowMilliseconds)
        #expect(integer(renewal, "autoRenewStatus") == 0 && integer(renewal, "expirationIntent") == 1)
        #expect(string(notification, "subtype") == "VOLUNTARY")
        guard case .object(let data)? = notification["data"] else { return #expect(Bool(false)) }
        #expect(data["status"] == .integer(2))
        let refund = MintPayloads.payload(.transaction, context: MintContext(now: now, notificationType: "REFUND"))
        #expect(string(refund, "revocationType") == "REFUND_FULL" && refund["revocationDate"] != nil)
    }

    @Test func setParsesJSONValuesElseStrings() throws {
        var payload = MintPayloads.payload(.notification, context: context)
        let keys = payload.keys
        try MintPayloads.set("signedDate=1700000000000", in: &payload)
        try MintPayloads.set("version=3", in: &payload)
        try MintPayloads.set("subtype=\"RESUBSCRIBE\"", in: &payload)
        try MintPayloads.set("data.status=2", in: &payload)
        try MintPayloads.set("data.flag=true", in: &payload)
        try MintPayloads.set("data.bundleId=com.other=app", in: &payload)
        try MintPayloads.set("extra.deep.list=[1,\"a\",null]", in: &payload)
        try MintPayloads.set("object={\"b\":1,\"a\":2.5}", in: &payload)
        try MintPayloads.set("empty=", in: &payload)
        #expect(payload["signedDate"] == .integer(1_700_000_000_000))
        #expect(payload["version"] == .integer(3) && payload["subtype"] == .string("RESUBSCRIBE"))
        #expect(Array(payload.keys.prefix(keys.count)) == keys, "replaced members keep their place")
        guard case .object(let data)? = payload["data"] else { return #expect(Bool(false)) }
        #expect(data["status"] == .integer(2) && data["flag"] == .bool(true))
        #expect(data["bundleId"] == .string("com.other=app"))
        let list = OrderedJSON.array([.integer(1), .string("a"), .null])
        let deep = OrderedJSON.Object([("deep", .object(OrderedJSON.Object([("list", list)])))])
        #expect(payload["extra"] == .object(deep))
        #expect(payload["object"] == .object(OrderedJSON.Object([("b", .integer(1)), ("a", .double(2.5))])))
        #expect(payload["empty"] == .string(""))
    }

    @Test(arguments: ["version.major=2", "data.status.code=1", "price", "=1", "a..b=1", ".a=1"])
    func setRefuses(assignment: String) {
        var payload = MintPayloads.payload(.notification, context: context)
        let before = payload
        #expect(throws: MintError.self) { try MintPayloads.set(assignment, in: &payload) }
        #expect(payload == before)
    }

    /// PATH is bounded as templates are: 64 levels (65,000 overflowed the stack), 4 KiB.
    @Test func setBoundsThePathAsTemplatesAreBounded() throws {
        var payload = MintPayloads.payload(.notification, context: context)
        let deepest = Array(repeating: "a", count: 64).joined(separator: ".")
        try MintPayloads.set(deepest + "=1", in: &payload)
        let before = payload
        #expect(throws: MintError("the path has 65 levels, over the 64 a payload may nest (as in templates)")) {
            try MintPayloads.set(deepest + ".a=1", in: &payload)
        }
        #expect(throws: MintError("the path is 4097 bytes, over the 4096 allowed")) {
            try MintPayloads.set(String(repeating: "a", count: 4097) + "=1", in: &payload)
        }
        #expect(payload == before)
    }

    @Test func setThroughANonObjectSaysWhere() {
        var payload = MintPayloads.payload(.notification, context: context)
        #expect(throws: MintError("cannot set data.status.code: data.status is a number, not an object")) {
            try MintPayloads.set("data.status.code=1", in: &payload)
        }
    }

    @Test func mergeReplacesAndAddsRecursively() throws {
        var payload = MintPayloads.payload(.notification, context: context)
        let template = try MintPayloads.object(
            json: Array(#"{"z":1,"version":"2.1","data":{"status":5,"new":"x"}}"#.utf8))
        #expect(template.keys == ["z", "version", "data"])
        MintPayloads.merge(template, into: &payload)
        #expect(payload["version"] == .string("2.1") && payload.keys.last == "z")
        guard case .object(let data)? = payload["data"] else { return #expect(Bool(false)) }
        #expect(data["status"] == .integer(5) && data["new"] == .string("x") && data["bundleId"] != nil)
    }

    @Test(arguments: MintKind.allCases)
    func jsonRoundTrips(kind: MintKind) throws {
        let payload = MintPayloads.payload(kind, context: context)
        #expect(try MintPayloads.object(json: payload.jsonBytes) == payload)
        let members = try decoded(payload)
        #expect(Set(members.keys) == Set(payload.keys))
    }

    @Test func stringsAreEscapedAndNumbersKeptInRange() throws {
        let text = "quote \" backslash \\ newline \n tab \t bell \u{7} slash / é 🍎"
        let object = OrderedJSON.Object([
            ("s", .string(text)), ("max", .integer(.max)), ("min", .integer(.min)), ("d", .double(0.1)),
        ])
        #expect(
            try JSONValue.decode(object.jsonBytes)
                == .object([
                    "s": .string(text), "max": .integer(.max), "min": .integer(.min), "d": .double(0.1),
                ]))
        #expect(try MintPayloads.object(json: object.jsonBytes) == object)
    }

    @Test(arguments: [
        "", "[]", "{", "{\"a\"}", "{\"a\":1,}", "{\"a\":01}", "{\"a\":1e400}", "{\"a\":\"\u{1}\"}",
        "{\"a\":\"\\ud800\"}", "{\"a\":1,\"a\":2}", "{\"a\":tru}", "{\"a\":1} x", "{\"a\":-}", "{\"a\":1.}",
        String(repeating: "[", count: 100_000),
        "{\"a\":" + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}",
    ])
    func badJSONIsRefusedWithOneLine(text: String) {
        #expect {
            _ = try MintPayloads.object(json: Array(text.utf8))
        } throws: { error in
            !String(describing: error).contains("\n")
        }
    }

    @Test func largeIntegersBecomeDoubles() throws {
        let object = try MintPayloads.object(json: Array(#"{"a":99999999999999999999,"b":-9223372036854775808}"#.utf8))
        #expect(object["a"] == .double(1e20) && object["b"] == .integer(.min))
        #expect(throws: MintError.self) { try MintPayloads.object(json: [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]) }
    }
}
