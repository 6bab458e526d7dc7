import Foundation
import TestPKI

/// A legacy App Store receipt shaped like a long-lived subscriber's: production, signed by an
/// App Store-shaped test chain (DER, SHA-256, leaf, intermediate and root embedded).
///
/// In-app entries, oldest first: monthly renewals of one subscription, the last one still
/// running at the creation date, with every fifth entry a trial, every seventh an
/// introductory offer, and every eleventh a lifetime purchase (no `expires_date`), every
/// third of those, from the first, refunded (`cancellation_date`). Two undocumented attributes, as
/// Apple's receipts carry, and when `size` asks for it one more (type 9999, raw bytes)
/// that pads the receipt to about `size` bytes.
enum MintedReceipt {
    static let day: TimeInterval = 24 * 3600

    static func sign(entries: Int, size: Int, createdAt created: Date, chain: TestReceiptChain) -> [UInt8] {
        var builder = ReceiptBuilder(receiptType: ReceiptBuilder.production, creationDate: created)
        builder.appVersion = "4.2"
        builder.originalAppVersion = "1.0"
        builder.inApp = (0..<entries).map { entry($0, of: entries, created: created) }
        builder.extraAttributes = [
            TestReceiptAttribute(type: 8, value: .ia5String(ReceiptBuilder.rfc3339(created))),
            TestReceiptAttribute(type: 10, value: .utf8String("4+")),
        ]
        let unpadded = chain.sign(builder.der())
        // The padding attribute's own header (type, version, OCTET STRING, SEQUENCE) is about 16 bytes.
        guard size > unpadded.count + 32 else { return unpadded }
        let padding = size - unpadded.count - 16
        builder.extraAttributes.append(
            TestReceiptAttribute(type: 9999, value: .raw((0..<padding).map { UInt8(truncatingIfNeeded: $0) })))
        return chain.sign(builder.der())
    }

    /// Entry `index` of `count`: the last one purchased a day before `created`.
    static func entry(_ index: Int, of count: Int, created: Date) -> InAppEntry {
        let purchased = created.addingTimeInterval(-Double(count - index) * 30 * day + 29 * day)
        let transactionID = String(1_000_000_000_000_000 + index)
        if index % 11 == 10 {
            return InAppEntry(
                productID: "com.example.jwsinspect.lifetime", transactionID: transactionID, purchaseDate: purchased,
                cancellationDate: (index / 11) % 3 == 0 ? purchased.addingTimeInterval(3 * day) : nil)
        }
        return InAppEntry(
            productID: "com.example.jwsinspect.monthly", transactionID: transactionID,
            originalTransactionID: "1000000000000000", purchaseDate: purchased,
            expiresDate: purchased.addingTimeInterval(30 * day), webOrderLineItemID: Int64(2_000_000_000 + index),
            isTrialPeriod: index % 5 == 0, isInIntroOfferPeriod: index % 7 == 1)
    }
}
