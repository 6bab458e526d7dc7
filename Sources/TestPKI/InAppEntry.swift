package import FoundationEssentials

/// One in-app purchase of a legacy receipt (attribute type 17): a `SET OF` attributes
/// 1701–1719 with the value types Apple's receipts use.
package struct InAppEntry: Sendable {
    /// 1701 quantity (INTEGER).
    package var quantity: Int64
    /// 1702 product_id (UTF8String).
    package var productID: String
    /// 1703 transaction_id (UTF8String).
    package var transactionID: String
    /// 1705 original_transaction_id (UTF8String).
    package var originalTransactionID: String
    /// 1704 purchase_date (IA5String, RFC 3339).
    package var purchaseDate: Date
    /// 1706 original_purchase_date (IA5String, RFC 3339).
    package var originalPurchaseDate: Date
    /// 1708 expires_date (IA5String, RFC 3339); nil writes the empty string, as for a non-subscription.
    package var expiresDate: Date?
    /// 1712 cancellation_date (IA5String, RFC 3339); nil writes the empty string, as Apple does.
    package var cancellationDate: Date?
    /// 1711 web_order_line_item_id (INTEGER).
    package var webOrderLineItemID: Int64
    /// 1713 is_trial_period (INTEGER 0 or 1).
    package var isTrialPeriod: Bool
    /// 1719 is_in_intro_offer_period (INTEGER 0 or 1).
    package var isInIntroOfferPeriod: Bool
    /// More attributes appended after the ones above (undocumented or unknown types, duplicates).
    package var extraAttributes: [TestReceiptAttribute]
    /// Values written instead of the ones above, by type (an `expires_date` that is an
    /// INTEGER, a `cancellation_date` that is raw bytes…).
    package var replacedValues: [Int: TestReceiptValue] = [:]

    /// Creates an entry; `originalTransactionID` defaults to `transactionID` and
    /// `originalPurchaseDate` to `purchaseDate`.
    package init(
        productID: String,
        transactionID: String,
        originalTransactionID: String? = nil,
        purchaseDate: Date,
        originalPurchaseDate: Date? = nil,
        expiresDate: Date? = nil,
        cancellationDate: Date? = nil,
        quantity: Int64 = 1,
        webOrderLineItemID: Int64 = 0,
        isTrialPeriod: Bool = false,
        isInIntroOfferPeriod: Bool = false,
        extraAttributes: [TestReceiptAttribute] = []
    ) {
        self.productID = productID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID ?? transactionID
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate ?? purchaseDate
        self.expiresDate = expiresDate
        self.cancellationDate = cancellationDate
        self.quantity = quantity
        self.webOrderLineItemID = webOrderLineItemID
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.extraAttributes = extraAttributes
    }

    /// The entry's attributes, in type order, then `extraAttributes`.
    package var attributes: [TestReceiptAttribute] {
        [
            TestReceiptAttribute(type: 1701, value: .integer(quantity)),
            TestReceiptAttribute(type: 1702, value: .utf8String(productID)),
            TestReceiptAttribute(type: 1703, value: .utf8String(transactionID)),
            TestReceiptAttribute(type: 1704, value: .ia5String(ReceiptBuilder.rfc3339(purchaseDate))),
            TestReceiptAttribute(type: 1705, value: .utf8String(originalTransactionID)),
            TestReceiptAttribute(type: 1706, value: .ia5String(ReceiptBuilder.rfc3339(originalPurchaseDate))),
            TestReceiptAttribute(type: 1708, value: .ia5String(expiresDate.map(ReceiptBuilder.rfc3339) ?? "")),
            TestReceiptAttribute(type: 1711, value: .integer(webOrderLineItemID)),
            TestReceiptAttribute(type: 1712, value: .ia5String(cancellationDate.map(ReceiptBuilder.rfc3339) ?? "")),
            TestReceiptAttribute(type: 1713, value: .integer(isTrialPeriod ? 1 : 0)),
            TestReceiptAttribute(type: 1719, value: .integer(isInIntroOfferPeriod ? 1 : 0)),
        ].map { TestReceiptAttribute(type: $0.type, version: $0.version, value: replacedValues[$0.type] ?? $0.value) }
            + extraAttributes
    }

    /// The type-17 attribute holding this entry.
    package var attribute: TestReceiptAttribute {
        TestReceiptAttribute(type: ReceiptBuilder.Field.inApp, value: .set(attributes))
    }
}
