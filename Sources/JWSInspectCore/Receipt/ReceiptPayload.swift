package import FoundationEssentials

/// The content of a legacy App Store receipt: its `SET OF ReceiptAttribute`, decoded with
/// OpenSSL's ASN.1 API, its fields as values and its in-app entries.
///
/// Every attribute is kept, in order, known or not (`attributes`); the typed properties read
/// the first attribute of their type. Decoding is bounded: at most `maximumAttributes`
/// attributes in each in-app entry and in the receipt besides its in-app entries, at most
/// `maximumInAppEntries` in-app entries, and nesting is fixed at two levels (the receipt's SET and, inside type-17 values,
/// an in-app entry's SET: nothing deeper is decoded, an in-app entry's own type 17 stays raw).
package struct ReceiptPayload: Sendable {
    /// The most attributes decoded from one SET (the receipt's, or an in-app entry's).
    package static let maximumAttributes = 10_000
    /// The most in-app entries decoded from one receipt.
    package static let maximumInAppEntries = 10_000

    /// Field types of the receipt (Apple's "Receipt Fields"), with verifyReceipt's names.
    package enum Field {
        package static let receiptType = 0
        package static let bundleID = 2
        package static let applicationVersion = 3
        package static let opaqueValue = 4
        package static let sha1Hash = 5
        package static let creationDate = 12
        package static let inApp = 17
        package static let originalApplicationVersion = 19
        package static let expirationDate = 21
    }

    /// Why a receipt's content cannot be decoded.
    package enum DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The content (or an in-app entry's value) is not one DER SET.
        case notASet(what: String, reason: String)
        /// An element of a SET is not a well-formed attribute.
        case malformedAttribute(what: String, index: Int, reason: String)
        /// More attributes than the limit in one SET.
        case tooManyAttributes(what: String, count: Int, limit: Int)
        /// More in-app entries than the limit.
        case tooManyInAppEntries(count: Int, limit: Int)
        /// A documented field more than once in one SET: which one counts would be a guess.
        case duplicateField(what: String, name: String, type: Int)

        package var description: String {
            switch self {
            case .notASet(let what, let reason):
                "not a valid receipt: \(what) is not a DER SET of attributes (\(reason))"
            case .malformedAttribute(let what, let index, let reason):
                "not a valid receipt: attribute \(index + 1) of \(what) is malformed (\(reason))"
            case .tooManyAttributes(let what, let count, let limit):
                "receipt refused: \(what) has \(count > limit ? "more than \(limit)" : "\(count)") attributes, "
                    + "over the limit of \(limit) attributes per SET"
            case .tooManyInAppEntries(let count, let limit):
                "receipt refused: \(count) in-app entries, over the limit of \(limit) in-app entries"
            case .duplicateField(let what, let name, let type):
                "receipt refused: \(what) holds \(name) (field \(type)) more than once, so which one counts is ambiguous"
            }
        }
    }

    /// Every attribute of the receipt, in order (type-17 in-app entries included, undecoded).
    package let attributes: [ReceiptAttribute]
    /// The in-app entries (type 17), in order.
    package let inApp: [InAppPurchase]

    /// Decodes the DER content of a receipt (`CMSSignedData.content`).
    ///
    /// - Throws: `DecodingError` when the content is not a SET of attributes, an in-app entry
    ///   is not one, or a limit is exceeded.
    package init(der: [UInt8]) throws(DecodingError) {
        // The in-app entries' own limit decides how many there may be: 9,994 entries and the
        // receipt's fields must not reach the attributes' limit first, with the wrong words.
        let attributes = try ReceiptAttributeSet.decode(
            der, limit: Self.maximumAttributes + Self.maximumInAppEntries, what: "the receipt")
        try ReceiptAttributeSet.refuseDuplicates(in: attributes, of: Self.fieldOrder, what: "the receipt")
        let entries = attributes.filter { $0.type == Field.inApp }
        guard attributes.count - entries.count <= Self.maximumAttributes else {
            throw .tooManyAttributes(
                what: "the receipt", count: attributes.count - entries.count, limit: Self.maximumAttributes)
        }
        guard entries.count <= Self.maximumInAppEntries else {
            throw .tooManyInAppEntries(count: entries.count, limit: Self.maximumInAppEntries)
        }
        var inApp: [InAppPurchase] = []
        inApp.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            inApp.append(try InAppPurchase(der: entry.bytes, index: index))
        }
        self.attributes = attributes
        self.inApp = inApp
    }

    /// The first attribute of `type`, if any.
    package func attribute(_ type: Int) -> ReceiptAttribute? { attributes.first { $0.type == type } }

    /// `receipt_type` (field 0): "Production", "ProductionSandbox" or "Xcode".
    package var receiptType: String? { attribute(Field.receiptType)?.value.string }
    /// `bundle_id` (field 2).
    package var bundleID: String? { attribute(Field.bundleID)?.value.string }
    /// Field 2's whole DER value (tag, length, UTF8String bytes): what the device hash covers.
    package var bundleIDBytes: [UInt8]? { attribute(Field.bundleID)?.bytes }
    /// `application_version` (field 3).
    package var applicationVersion: String? { attribute(Field.applicationVersion)?.value.string }
    /// `original_application_version` (field 19).
    package var originalApplicationVersion: String? { attribute(Field.originalApplicationVersion)?.value.string }
    /// `opaque_value` (field 4): the bytes as they are (16, or 8 in Xcode receipts).
    package var opaqueValue: [UInt8]? { attribute(Field.opaqueValue)?.bytes }
    /// `sha1_hash` (field 5): the device hash, 20 bytes.
    package var sha1Hash: [UInt8]? { attribute(Field.sha1Hash)?.bytes }
    /// `receipt_creation_date` (field 12) as signed.
    package var creationDateText: String? { attribute(Field.creationDate)?.value.string }
    /// `receipt_creation_date` (field 12) parsed; nil when absent or not an RFC 3339 date.
    package var creationDate: Date? { creationDateText.flatMap(ReceiptDate.parse) }
    /// `receipt_creation_date` (field 12) as the check time reads it: absent, a date, or
    /// unreadable (another ASN.1 type, text that is no date, the field more than once).
    package var creation: ReceiptDate.Reading {
        ReceiptDate.read(Field.creationDate, named: "receipt_creation_date", in: attributes)
    }
    /// `expiration_date` (field 21) as signed.
    package var expirationDateText: String? { attribute(Field.expirationDate)?.value.string }
    /// `expiration_date` (field 21) parsed.
    package var expirationDate: Date? { expirationDateText.flatMap(ReceiptDate.parse) }
    /// `expiration_date` (field 21) as the access rule reads it: absent, a date, or unreadable.
    package var expiration: ReceiptDate.Reading {
        ReceiptDate.read(Field.expirationDate, named: "the receipt's expiration_date", in: attributes)
    }
}

/// One in-app entry of a receipt (the DER SET held by a type-17 attribute).
package struct InAppPurchase: Sendable {
    /// In-app field types, with verifyReceipt's names.
    package enum Field {
        package static let quantity = 1701
        package static let productID = 1702
        package static let transactionID = 1703
        package static let purchaseDate = 1704
        package static let originalTransactionID = 1705
        package static let originalPurchaseDate = 1706
        package static let expiresDate = 1708
        package static let webOrderLineItemID = 1711
        package static let cancellationDate = 1712
        package static let isTrialPeriod = 1713
        package static let isInIntroOfferPeriod = 1719
        /// Apple's "Receipt Fields" documents 1721 as the promotional offer identifier.
        package static let promotionalOfferID = 1721
    }

    /// Every attribute of the entry, in order.
    package let attributes: [ReceiptAttribute]

    /// Decodes the DER SET of an in-app entry.
    ///
    /// - Parameter index: the entry's position (0-based), for messages.
    init(der: [UInt8], index: Int) throws(ReceiptPayload.DecodingError) {
        attributes = try ReceiptAttributeSet.decode(
            der, limit: ReceiptPayload.maximumAttributes, what: "in-app entry \(index + 1)")
        try ReceiptAttributeSet.refuseDuplicates(
            in: attributes, of: Self.fieldOrder, what: "in-app entry \(index + 1)")
    }

    /// The first attribute of `type`, if any.
    package func attribute(_ type: Int) -> ReceiptAttribute? { attributes.first { $0.type == type } }

    /// `quantity` (1701).
    package var quantity: Int64? { attribute(Field.quantity)?.value.integer }
    /// `product_id` (1702).
    package var productID: String? { attribute(Field.productID)?.value.string }
    /// `transaction_id` (1703).
    package var transactionID: String? { attribute(Field.transactionID)?.value.string }
    /// `original_transaction_id` (1705).
    package var originalTransactionID: String? { attribute(Field.originalTransactionID)?.value.string }
    /// `purchase_date` (1704) as signed.
    package var purchaseDateText: String? { attribute(Field.purchaseDate)?.value.string }
    /// `purchase_date` (1704) parsed.
    package var purchaseDate: Date? { date(Field.purchaseDate) }
    /// `expires_date` (1708) parsed; nil when absent or empty (not a subscription).
    package var expiresDate: Date? { date(Field.expiresDate) }
    /// `cancellation_date` (1712) parsed; nil when absent or empty (not cancelled).
    package var cancellationDate: Date? { date(Field.cancellationDate) }
    /// `web_order_line_item_id` (1711).
    package var webOrderLineItemID: Int64? { attribute(Field.webOrderLineItemID)?.value.integer }

    /// Whether the entry holds an `expires_date` that is not an empty string: a subscription
    /// (one whose date does not read grants nothing).
    package var isSubscription: Bool { dateField(Field.expiresDate) != .absent }
    /// Whether the entry holds a `cancellation_date` that is not an empty string (refunded or
    /// revoked): one that is no readable date counts, so that it grants nothing.
    package var isCancelled: Bool { dateField(Field.cancellationDate) != .absent }

    /// `type`'s date: absent, a date, or unreadable (never silently absent when something is there).
    package func dateField(_ type: Int) -> ReceiptDate.Reading {
        ReceiptDate.read(type, named: Self.fieldNames[type] ?? "field \(type)", in: attributes)
    }

    /// The problem with `expires_date` or `cancellation_date` that makes the entry grant
    /// nothing, or nil when both read (or are absent).
    package var unreadableDate: String? {
        for type in [Field.expiresDate, Field.cancellationDate] {
            if case .unreadable(let problem) = dateField(type) { return problem }
        }
        return nil
    }

    private func date(_ type: Int) -> Date? {
        if case .date(let date) = dateField(type) { return date }
        return nil
    }
}
