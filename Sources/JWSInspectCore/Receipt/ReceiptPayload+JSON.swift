internal import FoundationEssentials

extension ReceiptPayload {
    /// verifyReceipt's names of the receipt's field types.
    public static let fieldNames: [Int: String] = [
        Field.receiptType: "receipt_type", Field.bundleID: "bundle_id",
        Field.applicationVersion: "application_version", Field.opaqueValue: "opaque_value",
        Field.sha1Hash: "sha1_hash", Field.creationDate: "receipt_creation_date",
        Field.originalApplicationVersion: "original_application_version",
        Field.expirationDate: "expiration_date",
    ]

    /// The payload as a `JSONValue` object with verifyReceipt's field names, as support staff
    /// know them.
    ///
    /// Values as the receipt holds them: strings stay strings, integers integers, dates as
    /// signed (an empty date string stays ""); `opaque_value` and `sha1_hash` in standard
    /// base64; `in_app` always an array (empty when there is none). Unknown types are
    /// `unknown_<type>` with the attribute's bytes in lowercase hex, never dropped; a known type
    /// whose value is neither a string nor an integer shows its bytes in hex under its name.
    /// A type present more than once
    /// becomes an array of its values, in order. The receipt holds no `request_date` (a
    /// verifyReceipt server field); it is not invented.
    public var json: JSONValue {
        var object = ReceiptJSON.members(
            attributes.filter { $0.type != Field.inApp }, names: Self.fieldNames,
            base64: [Field.opaqueValue, Field.sha1Hash])
        object["in_app"] = .array(inApp.map(\.json))
        return .object(object)
    }
}

extension InAppPurchase {
    /// verifyReceipt's names of the in-app entry's field types.
    public static let fieldNames: [Int: String] = [
        Field.quantity: "quantity", Field.productID: "product_id", Field.transactionID: "transaction_id",
        Field.purchaseDate: "purchase_date", Field.originalTransactionID: "original_transaction_id",
        Field.originalPurchaseDate: "original_purchase_date", Field.expiresDate: "expires_date",
        Field.webOrderLineItemID: "web_order_line_item_id", Field.cancellationDate: "cancellation_date",
        Field.isTrialPeriod: "is_trial_period", Field.isInIntroOfferPeriod: "is_in_intro_offer_period",
        Field.promotionalOfferID: "promotional_offer_id",
    ]

    /// The entry as a `JSONValue` object, by the same rules as `ReceiptPayload.json`.
    public var json: JSONValue {
        .object(ReceiptJSON.members(attributes, names: Self.fieldNames, base64: []))
    }
}

/// The rules `ReceiptPayload.json` and `InAppPurchase.json` share.
enum ReceiptJSON {
    /// One member per distinct type (an array when the type repeats).
    static func members(_ attributes: [ReceiptAttribute], names: [Int: String], base64: Set<Int>)
        -> [String: JSONValue]
    {
        var grouped: [String: [JSONValue]] = [:]
        var order: [String] = []
        for attribute in attributes {
            let (key, value) = member(attribute, names: names, base64: base64)
            if grouped[key] == nil { order.append(key) }
            grouped[key, default: []].append(value)
        }
        var object: [String: JSONValue] = [:]
        for key in order {
            guard let values = grouped[key] else { continue }
            object[key] = values.count == 1 ? values[0] : .array(values)
        }
        return object
    }

    /// An attribute's member name and value.
    static func member(_ attribute: ReceiptAttribute, names: [Int: String], base64: Set<Int>) -> (String, JSONValue) {
        let raw = ("unknown_\(attribute.type)", JSONValue.string(attribute.bytes.hexString()))
        guard let name = names[attribute.type] else { return raw }
        if base64.contains(attribute.type) {
            return (name, .string(Data(attribute.bytes).base64EncodedString()))
        }
        switch attribute.value {
        case .utf8String(let text), .ia5String(let text): return (name, .string(text))
        case .integer(let number): return (name, .integer(number))
        case .raw: return (name, .string(attribute.bytes.hexString()))
        }
    }
}
