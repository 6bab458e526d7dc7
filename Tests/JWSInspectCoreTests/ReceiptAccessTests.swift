import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// What a receipt means for access, the support summary, the payload as output shows it, and
/// where the scanner finds receipts among other input.
@Suite struct ReceiptAccessTests {
    static let day: TimeInterval = 86_400
    static let start = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01

    /// The receipt's decoded content, unsigned (access and summaries read the content only).
    static func payload(_ entries: [InAppEntry], type: String = ReceiptBuilder.production) throws -> ReceiptPayload {
        var builder = ReceiptBuilder(receiptType: type, bundleID: "com.example.app", creationDate: start)
        builder.appVersion = "1.2"
        builder.inApp = entries
        return try ReceiptPayload(der: builder.der())
    }

    static func subscription(_ id: String, expires days: Double, cancelled: Double? = nil) -> InAppEntry {
        InAppEntry(
            productID: id, transactionID: "1000\(Int(days))", purchaseDate: start.addingTimeInterval(-30 * day),
            expiresDate: start.addingTimeInterval(days * day),
            cancellationDate: cancelled.map { start.addingTimeInterval($0 * day) })
    }

    @Test func theSubscriptionExpiringLastDecidesAccess() throws {
        let receipt = try Self.payload([
            Self.subscription("com.example.pro.monthly", expires: 10),
            Self.subscription("com.example.pro.yearly", expires: 300),
        ])
        let access = receipt.access(at: Self.start)
        #expect(access.grantsAccess == true)
        #expect(access.until == Self.start.addingTimeInterval(300 * Self.day))
        #expect(access.explanation.hasSuffix("subscription com.example.pro.yearly"))
        #expect(
            receipt.summary(at: Self.start)
                == "App receipt for com.example.app 1.2 (Production, created 2025-01-01), 2 in-app purchases; "
                + "subscription \"com.example.pro.yearly\" expires 2025-10-28: grants access.")
        let later = receipt.access(at: Self.start.addingTimeInterval(301 * Self.day))
        #expect(later.grantsAccess == false)
        #expect(later.brief == "expired 2025-10-28")
        #expect(
            receipt.summary(at: Self.start.addingTimeInterval(301 * Self.day)).hasSuffix(
                "latest subscription \"com.example.pro.yearly\" expired 2025-10-28: grants no access (as of the "
                    + "receipt's creation, 2025-01-01: a later renewal is not in it)."))
    }

    @Test func aCancelledEntryGrantsNothingAndSaysSo() throws {
        let receipt = try Self.payload([Self.subscription("com.example.pro", expires: 30, cancelled: -2)])
        let access = receipt.access(at: Self.start)
        #expect(access.grantsAccess == false)
        #expect(access.explanation.contains("cancelled 2024-12-30"))
        #expect(
            receipt.summary(at: Self.start).hasSuffix(
                "\"com.example.pro\" cancelled 2024-12-30: grants no access (as of the receipt's creation, "
                    + "2025-01-01: a later renewal is not in it)."))
    }

    @Test func anEntryWithoutExpiryIsOwnedAndNoEntryIsNoAccess() throws {
        let lifetime = InAppEntry(
            productID: "com.example.lifetime", transactionID: "7",
            purchaseDate: Self.start.addingTimeInterval(-Self.day))
        let owned = try Self.payload([lifetime])
        #expect(owned.access(at: Self.start).grantsAccess == true)
        #expect(owned.access(at: Self.start).brief == "com.example.lifetime owned")
        // Bought after the access time: not yet.
        #expect(owned.access(at: Self.start.addingTimeInterval(-2 * Self.day)).grantsAccess == false)
        let empty = try Self.payload([])
        #expect(empty.access(at: Self.start).grantsAccess == false)
        #expect(
            empty.summary(at: Self.start)
                == "App receipt for com.example.app 1.2 (Production, created 2025-01-01), no in-app purchases; "
                + "no in-app purchase: grants no access.")
    }

    @Test func payloadTextKeepsTheDocumentedOrderAndIsTheJSONValue() throws {
        let receipt = try Self.payload([Self.subscription("com.example.pro", expires: 10)])
        let text = String(decoding: receipt.jsonBytes, as: UTF8.self)
        #expect(
            text.hasPrefix(#"{"receipt_type":"Production","bundle_id":"com.example.app","application_version":"1.2""#))
        #expect(text.contains(#""in_app":[{"quantity":1,"product_id":"com.example.pro","transaction_id":"100010""#))
        #expect(try JSONValue.decode(receipt.jsonBytes) == receipt.json)
    }

    @Test func theScannerFindsReceiptsBesideJWSAndNeverThePassword() throws {
        let der = try Fixtures.bytes("Tests/Vectors/receipts/01-xcode-apple-backyardbirds-empty.der")
        let base64 = Data(der).base64EncodedString()
        let token = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())
        let body = #"{"receipt-data":"\#(base64)","password":"hunter2","signedTransaction":"\#(token)"}"#
        let items = InputScanner.scan(Array(body.utf8), origin: "body.json")
        #expect(
            items == [
                .receipt(source: "body.json: receipt-data", der: der),
                .token(source: "body.json: signedTransaction", token: token),
            ])
        // Wrapped base64 ends where a line is not base64: the JWS after it is a record of its own.
        let wrapped = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        let lines = InputScanner.scan(Array((wrapped + "\n" + token + "\n").utf8), origin: "log")
        #expect(lines.map(\.kind) == [.pkcs7, .compactJWS])
        #expect(lines.first == .receipt(source: "log:1", der: der))
    }

    @Test func aRawReceiptOverTheLimitIsRefusedNamingIt() {
        let start: [UInt8] = [0x30, 0x83, 0x50, 0x00, 0x00] + LegacyReceipt.signedDataOID
        let bytes = start + [UInt8](repeating: 0, count: CMSSignedData.maximumSize)
        let items = InputScanner.scan(bytes, origin: "huge.der")
        #expect(items.count == 1)
        guard case .malformed(let source, let reason)? = items.first else {
            Issue.record("not refused: \(items)")
            return
        }
        #expect(source == "huge.der")
        #expect(reason.contains("limit of \(CMSSignedData.maximumSize) bytes"))
    }
}
