internal import FoundationEssentials

extension ReceiptPayload {
    /// verifyReceipt's names of the receipt's field types, in the order they are shown.
    package static let fieldOrder: [(type: Int, name: String)] = [
        (Field.receiptType, "receipt_type"), (Field.bundleID, "bundle_id"),
        (Field.applicationVersion, "application_version"),
        (Field.originalApplicationVersion, "original_application_version"),
        (Field.creationDate, "receipt_creation_date"), (Field.expirationDate, "expiration_date"),
        (Field.opaqueValue, "opaque_value"), (Field.sha1Hash, "sha1_hash"),
    ]

    /// verifyReceipt's names of the receipt's field types.
    package static let fieldNames = Dictionary(uniqueKeysWithValues: fieldOrder.map { ($0.type, $0.name) })

    /// The payload as a `JSONValue` object with verifyReceipt's field names, as support staff
    /// know them.
    ///
    /// Values as the receipt holds them: strings stay strings, integers integers, dates as
    /// signed (an empty date string stays ""); `opaque_value` and `sha1_hash` in standard
    /// base64; `in_app` always an array (empty when there is none). Unknown types are
    /// `unknown_<type>` with the attribute's bytes in lowercase hex, never dropped; a known type
    /// whose value is neither a string nor an integer shows its bytes in hex under its name.
    /// A type present more than once becomes an array of its values, in order. The receipt
    /// holds no `request_date` (a verifyReceipt server field); it is not invented.
    package var json: JSONValue { .object(Dictionary(uniqueKeysWithValues: orderedMembers)) }

    /// The members of `json` in display order: the documented fields in `fieldOrder`, then
    /// unknown ones by type, then `in_app`.
    package var orderedMembers: [(String, JSONValue)] { Self.members(ordered) }

    /// `orderedMembers` as UTF-8 JSON text, in that order (an in-app entry's members in
    /// `InAppPurchase.fieldOrder`): the receipt's `payload` as output shows it.
    package var jsonBytes: [UInt8] { Self.bytes(ordered) }

    /// `orderedMembers` and `jsonBytes` together, the attributes read once for both.
    package var orderedMembersAndBytes: (members: [(String, JSONValue)], bytes: [UInt8]) {
        let ordered = ordered
        return (Self.members(ordered), Self.bytes(ordered))
    }

    /// The receipt's own members and each in-app entry's, in display order.
    private var ordered: (own: [(String, JSONValue)], entries: [[(String, JSONValue)]]) {
        let own = ReceiptJSON.members(
            attributes.filter { $0.type != Field.inApp }, order: Self.fieldOrder,
            base64: [Field.opaqueValue, Field.sha1Hash])
        return (own, inApp.map(\.orderedMembers))
    }

    private static func members(_ ordered: (own: [(String, JSONValue)], entries: [[(String, JSONValue)]]))
        -> [(String, JSONValue)]
    {
        let entries = ordered.entries.map { JSONValue.object(Dictionary(uniqueKeysWithValues: $0)) }
        return ordered.own + [("in_app", .array(entries))]
    }

    /// The compact text `OrderedJSON` writes of these members (in their order, an in-app
    /// entry's too), written member by member: no tree of the receipt's hundreds of values is
    /// built to be written once.
    private static func bytes(_ ordered: (own: [(String, JSONValue)], entries: [[(String, JSONValue)]])) -> [UInt8] {
        var stream = JSONStream(pretty: false, capacity: 4096)
        func object(_ members: [(String, JSONValue)], inApp: [[(String, JSONValue)]]?) {
            stream.openObject()
            for (name, value) in members {
                stream.key(data: name)
                stream.value(value)
            }
            if let inApp {
                stream.key("in_app")
                stream.openArray()
                for entry in inApp {
                    stream.element()
                    object(entry, inApp: nil)
                }
                stream.closeArray()
            }
            stream.closeObject()
        }
        object(ordered.own, inApp: ordered.entries)
        return stream.bytes
    }
}

extension InAppPurchase {
    /// verifyReceipt's names of the in-app entry's field types, in the order they are shown.
    package static let fieldOrder: [(type: Int, name: String)] = [
        (Field.quantity, "quantity"), (Field.productID, "product_id"), (Field.transactionID, "transaction_id"),
        (Field.originalTransactionID, "original_transaction_id"), (Field.purchaseDate, "purchase_date"),
        (Field.originalPurchaseDate, "original_purchase_date"), (Field.expiresDate, "expires_date"),
        (Field.cancellationDate, "cancellation_date"), (Field.webOrderLineItemID, "web_order_line_item_id"),
        (Field.isTrialPeriod, "is_trial_period"), (Field.isInIntroOfferPeriod, "is_in_intro_offer_period"),
        (Field.promotionalOfferID, "promotional_offer_id"),
    ]

    /// verifyReceipt's names of the in-app entry's field types.
    package static let fieldNames = Dictionary(uniqueKeysWithValues: fieldOrder.map { ($0.type, $0.name) })

    /// The entry as a `JSONValue` object, by the same rules as `ReceiptPayload.json`.
    package var json: JSONValue { .object(Dictionary(uniqueKeysWithValues: orderedMembers)) }

    /// The members of `json` in display order (documented fields, then unknown ones by type).
    package var orderedMembers: [(String, JSONValue)] {
        ReceiptJSON.members(attributes, order: Self.fieldOrder, base64: [])
    }
}

/// The rules `ReceiptPayload.json` and `InAppPurchase.json` share, and their JSON text.
enum ReceiptJSON {
    /// One member per distinct type (an array when the type repeats): documented types in
    /// `order`, then the others by type number.
    ///
    /// Each attribute's place is found once (its type's place in `order`, else after them all
    /// by number) and the attributes sorted by it, then by position, so that a type's values
    /// stay in their order: no dictionary or set per entry (a receipt has hundreds of entries).
    static func members(_ attributes: [ReceiptAttribute], order: [(type: Int, name: String)], base64: [Int])
        -> [(String, JSONValue)]
    {
        // (0, place in `order`) for a documented type, (1, its number) for any other.
        var placed: [(group: Int, key: Int, index: Int)] = []
        placed.reserveCapacity(attributes.count)
        for (index, attribute) in attributes.enumerated() {
            if let place = order.firstIndex(where: { $0.type == attribute.type }) {
                placed.append((0, place, index))
            } else {
                placed.append((1, attribute.type, index))
            }
        }
        placed.sort { ($0.group, $0.key, $0.index) < ($1.group, $1.key, $1.index) }
        var members: [(String, JSONValue)] = []
        var start = 0
        while start < placed.count {
            let (group, key, _) = placed[start]
            var end = start + 1
            while end < placed.count, placed[end].group == group, placed[end].key == key { end += 1 }
            let documented = group == 0
            let values = placed[start..<end].map { value(attributes[$0.index], documented: documented, base64: base64) }
            let name = documented ? order[key].name : "unknown_" + String(key)
            members.append((name, values.count == 1 ? values[0] : .array(values)))
            start = end
        }
        return members
    }

    /// An attribute's value: hex for unknown types and for values that are neither a string
    /// nor an integer, base64 for `base64` types.
    private static func value(_ attribute: ReceiptAttribute, documented: Bool, base64: [Int]) -> JSONValue {
        guard documented else { return .string(attribute.bytes.hexString()) }
        if base64.contains(attribute.type) { return .string(Data(attribute.bytes).base64EncodedString()) }
        switch attribute.value {
        case .utf8String(let text), .ia5String(let text): return .string(text)
        case .integer(let number): return .integer(number)
        case .raw: return .string(attribute.bytes.hexString())
        }
    }
}
