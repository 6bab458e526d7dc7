import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

@Suite struct PayloadDisplayTests {
    let now = Fixtures.now  // 2025-06-01T00:00:00Z

    func display(_ json: String, kind: PayloadKind = .transaction) throws -> PayloadDisplay {
        let value = try JSONValue.decode(Array(json.utf8))
        return PayloadDisplay(kind: kind, payload: try #require(value.objectValue), now: now)
    }

    func field(_ display: PayloadDisplay, _ path: String) -> PayloadDisplay.Field? {
        display.fields.first { $0.dottedPath == path }
    }

    @Test func enumValuesShowTheirMeaning() throws {
        let shown = try display(
            #"{"transactionId":"1","revocationReason":1,"offerType":2,"type":"Consumable","offerDiscountType":"FREE_TRIAL"}"#
        )
        #expect(field(shown, "revocationReason")?.rendered == "1 — refunded: issue in the app")
        #expect(field(shown, "offerType")?.rendered == "2 — promotional offer")
        #expect(field(shown, "type")?.rendered == "Consumable — used up, never an entitlement")
        #expect(field(shown, "offerDiscountType")?.rendered == "FREE_TRIAL — free trial")
        let status = try display(#"{"notificationType":"DID_FAIL_TO_RENEW","data":{"status":3}}"#, kind: .notification)
        #expect(field(status, "data.status")?.rendered == "3 — billing retry")
        #expect(field(status, "notificationType")?.rendered == "DID_FAIL_TO_RENEW — renewal failed (billing issue)")
    }

    @Test func unknownValuesAndFieldsAreFlaggedNeverDropped() throws {
        let shown = try display(
            #"{"transactionId":"1","offerType":9,"inAppOwnershipType":"BORROWED","shinyNewField":true}"#)
        #expect(field(shown, "offerType")?.raw == "9")
        #expect(field(shown, "offerType")?.flag == "value unknown to this version")
        #expect(field(shown, "inAppOwnershipType")?.flag == "value unknown to this version")
        #expect(field(shown, "shinyNewField")?.raw == "true")
        #expect(shown.unknownFields == ["shinyNewField"])
        #expect(
            shown.unknownValues == ["offerType", "inAppOwnershipType"]
                || shown.unknownValues == ["inAppOwnershipType", "offerType"])
        let nested = try display(
            #"{"notificationType":"TEST","data":{"bundleId":"b","newThing":1}}"#, kind: .notification)
        #expect(nested.unknownFields == ["data.newThing"])
    }

    @Test func pricesStorefrontsAndPeriods() throws {
        let shown = try display(
            #"{"transactionId":"1","price":9990,"currency":"USD","storefront":"USA","offerPeriod":"P1M","revocationPercentage":50000}"#
        )
        #expect(field(shown, "price")?.rendered == "9.99 USD")
        #expect(field(shown, "storefront")?.rendered == "USA — United States")
        #expect(field(shown, "offerPeriod")?.rendered == "P1M — 1 month")
        #expect(field(shown, "revocationPercentage")?.rendered == "50%")
        #expect(Money.format(milliunits: 1_200_000, currency: "JPY") == "1200 JPY")
        #expect(Money.format(milliunits: 10_000, currency: "EUR") == "10.00 EUR")
        #expect(Money.format(milliunits: 1_995, currency: "USD") == "1.995 USD")
        let unknownStorefront = try display(#"{"transactionId":"1","storefront":"XYZ"}"#)
        #expect(field(unknownStorefront, "storefront")?.flag != nil)
    }

    /// Nested display is bounded: objects and arrays deeper than `maximumDepth` are shown as
    /// signed, flagged; an array of objects shows its first `maximumElements` and counts the rest.
    @Test func nestedDisplayIsBoundedInDepthAndCount() throws {
        let levels = PayloadDisplay.maximumDepth + 4
        let deep = String(repeating: #"{"a":"#, count: levels) + "1" + String(repeating: "}", count: levels)
        let items = (0..<150).map { #"{"SKU":"\#($0)"}"# }.joined(separator: ",")
        let shown = try display(#"{"transactionId":"1","zz":\#(deep),"advancedCommerceInfo":{"items":[\#(items)]}}"#)
        let cut = try #require(shown.fields.first { $0.flag?.hasPrefix("nested deeper than") == true })
        #expect(cut.path.count == PayloadDisplay.maximumDepth)
        #expect(cut.raw == "{…}")
        #expect(!shown.fields.contains { $0.path.count > PayloadDisplay.maximumDepth })
        let elements = shown.fields.filter { $0.path.starts(with: ["advancedCommerceInfo", "items"]) }
        #expect(elements.count == PayloadDisplay.maximumElements + 1)
        #expect(elements.last?.raw == "50 more elements not shown (see the payload)")
        #expect(field(shown, "advancedCommerceInfo.items[99].SKU")?.raw == "99")
        // The JSON display writes the same bounds, and stays one JSON object.
        var stream = JSONStream(pretty: false)
        let payload = try #require(
            try JSONValue.decode(Array(#"{"advancedCommerceInfo":{"items":[\#(items)]}}"#.utf8)).objectValue)
        _ = PayloadDisplay.write(kind: .transaction, payload: payload, now: now, into: &stream)
        let written = try #require(try JSONSerialization.jsonObject(with: Data(stream.bytes)) as? [String: Any])
        let list = try #require((written["advancedCommerceInfo"] as? [String: Any])?["items"] as? [Any])
        #expect(list.count == PayloadDisplay.maximumElements + 1)
    }

    /// A name means what its object says: `status` in a price increase is not a subscription's
    /// status, and an element that is not an object where Apple's model has objects is flagged.
    @Test func aNestedNameMeansWhatItsObjectSays() throws {
        let shown = try display(
            #"{"advancedCommerceInfo":{"items":[{"priceIncreaseInfo":{"status":"ACCEPTED"}},7],"descriptors":"x"},"currency":"JPY"}"#,
            kind: .renewalInfo)
        #expect(
            field(shown, "advancedCommerceInfo.items[0].priceIncreaseInfo.status")?.rendered
                == "ACCEPTED — accepted by the customer")
        #expect(field(shown, "advancedCommerceInfo.items[1]")?.flag == "expected an object")
        #expect(field(shown, "advancedCommerceInfo.descriptors")?.flag == "expected an object")
        #expect(Money.percent(fraction: "0.15") == "15")
        #expect(Money.percent(fraction: "0.0825") == "8.25")
        #expect(Money.percent(fraction: "1") == "100")
        for bad in ["", ".5", "1.2.3", "-0.1", "0.1e2", "0.1234567890123"] {
            #expect(Money.percent(fraction: bad) == nil, "\(bad)")
        }
    }

    @Test func datesAreISOWithRelativePhrases() throws {
        let shown = try display(
            #"{"transactionId":"1","purchaseDate":1759388776941,"expiresDate":1749772800000,"signedDate":1654041600000}"#
        )
        #expect(field(shown, "purchaseDate")?.rendered == "2025-10-02T07:06:16.941Z")
        #expect(field(shown, "expiresDate")?.relative == "in 12 days")
        #expect(field(shown, "signedDate")?.relative == "3 years ago")
    }

    @Test func xcodeDatesNeitherCrashNorLie() throws {
        let shown = try display(
            #"{"transactionId":"1","purchaseDate":1697679936049.7297,"revocationDate":-62135769600000,"expiresDate":1e300}"#
        )
        #expect(field(shown, "purchaseDate")?.raw == "1697679936049.7297")
        #expect(field(shown, "purchaseDate")?.rendered == "2023-10-19T01:45:36.050Z")
        #expect(field(shown, "purchaseDate")?.flag?.contains("fractional") == true)
        #expect(field(shown, "revocationDate")?.rendered?.hasPrefix("no date") == true)
        #expect(field(shown, "expiresDate")?.flag == "not a representable date")
    }

    @Test func summariesForSupportStaff() throws {
        func summary(_ json: String, _ kind: PayloadKind, at time: Date? = nil) throws -> String {
            Entitlement.summary(
                kind: kind, payload: try #require(try JSONValue.decode(Array(json.utf8)).objectValue), now: time ?? now)
        }
        let refunded =
            #"{"type":"Auto-Renewable Subscription","productId":"com.example.pro","purchaseDate":1772323200000,"expiresDate":1774915200000,"revocationDate":1772582400000,"revocationReason":1}"#
        #expect(
            try summary(refunded, .transaction, at: Date(timeIntervalSince1970: 1_780_000_000))
                == "Auto-renewable subscription com.example.pro, purchased 2026-03-01; grants no access: revoked 2026-03-04 (refunded: issue in the app)."
        )
        let active =
            #"{"type":"Auto-Renewable Subscription","productId":"p","purchaseDate":1748736000000,"expiresDate":1751328000000}"#
        #expect(
            try summary(active, .transaction)
                == "Auto-renewable subscription p, purchased 2025-06-01; grants access until 2025-07-01T00:00:00.000Z.")
        #expect(
            try summary(#"{"type":"Consumable","productId":"coins"}"#, .transaction)
                == "Consumable coins; not an entitlement: a consumable is used up, never an ongoing entitlement.")
        #expect(
            try summary(
                #"{"notificationType":"REFUND","data":{"bundleId":"b","environment":"Production","status":5}}"#,
                .notification)
                == "REFUND (App Store refunded a transaction) for b in Production; status when sent: revoked.")
    }

    @Test func accessFollowsApplesRules() throws {
        func access(_ json: String) throws -> Entitlement.Access {
            Entitlement.access(
                kind: .transaction, payload: try #require(try JSONValue.decode(Array(json.utf8)).objectValue), at: now)
        }
        #expect(try access(#"{"expiresDate":1751328000000}"#).grantsAccess == true)
        #expect(try access(#"{"expiresDate":1748000000000}"#).grantsAccess == false)
        #expect(try access(#"{"expiresDate":1751328000000,"revocationDate":1748000000000}"#).grantsAccess == false)
        #expect(try access(#"{"expiresDate":1751328000000,"isUpgraded":true}"#).grantsAccess == false)
        #expect(try access(#"{"type":"Non-Consumable"}"#).grantsAccess == true)
        #expect(try access(#"{"type":"Consumable"}"#).grantsAccess == false)
    }

    @Test func realtimeRequestsAreRecognised() throws {
        let payload =
            #"{"originalTransactionId":"1","appAppleId":1,"productId":"p","userLocale":"en-US","requestIdentifier":"r","signedDate":1735689600000,"environment":"Sandbox"}"#
        let result = Fixtures.inspect(Fixtures.pki.sign(payloadJSON: payload)) { $0.expectedEnvironment = .sandbox }
        #expect(result.kind == .realtimeRequest)
        #expect(result.status == .valid)
        #expect(result.display?.unknownFields == [])
    }
}
