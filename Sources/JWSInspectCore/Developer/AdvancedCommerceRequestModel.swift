internal import FoundationEssentials

/// What Apple's Advanced Commerce API accepts as an in-app request (the JSON a developer
/// signs, base64, in an `advanced-commerce-api` token's `request` claim): its operation, its
/// version, `requestInfo` and each operation's members with their types, lengths, ranges and
/// values, as Apple's request models (app-store-server-library 3.1.2: the
/// `AdvancedCommerce…InAppRequest` models and `HelperValidationUtils`) define them.
///
/// A member the model does not name is not a problem (Apple's models keep unknown members);
/// a missing required member, a member of another type, a value out of range or not among
/// Apple's is, named by its path (`request.items[0].price`).
enum AdvancedCommerceRequestModel {
    /// The shape a member must have.
    indirect enum Shape: Sendable {
        case string(maxLength: Int?)
        case uuid
        case integer(ClosedRange<Int64>)
        case boolean
        case oneOf([String])
        /// A compact JWS (`header.payload.signature`).
        case jws
        case object([Member])
        case array(of: Shape, nonEmpty: Bool)
    }

    struct Member: Sendable {
        let name: String
        let shape: Shape
        let required: Bool

        init(_ name: String, _ shape: Shape, required: Bool = true) {
            self.name = name
            self.shape = shape
            self.required = required
        }
    }

    /// Apple's limits (HelperValidationUtils).
    static let descriptionLength = 45
    static let displayNameLength = 30
    static let skuLength = 128
    /// Amounts are in milliunits of the currency: never negative.
    static let amount: ClosedRange<Int64> = 0...Int64.max

    static let operations = [
        "CREATE_SUBSCRIPTION", "CREATE_ONE_TIME_CHARGE", "MODIFY_SUBSCRIPTION", "REACTIVATE_SUBSCRIPTION",
    ]
    static let periods = ["P1W", "P1M", "P2M", "P3M", "P6M", "P1Y"]
    static let offerPeriods = ["P3D", "P1W", "P2W", "P1M", "P2M", "P3M", "P6M", "P9M", "P1Y"]

    // The members below are made when asked, never held in statics: a static of indirect enum
    // boxes reads as a leak to LeakSanitizer (`make fuzz`), and a request is checked once.
    private static var sku: Member { Member("SKU", .string(maxLength: skuLength)) }
    private static var description: Member { Member("description", .string(maxLength: descriptionLength)) }
    private static var displayName: Member { Member("displayName", .string(maxLength: displayNameLength)) }
    private static var offer: Member {
        Member(
            "offer",
            .object([
                Member("periodCount", .integer(1...12)), Member("price", .integer(amount)),
                Member("period", .oneOf(offerPeriods)),
                Member("reason", .oneOf(["ACQUISITION", "WIN_BACK", "RETENTION"])),
            ]), required: false)
    }
    private static var effective: Member { Member("effective", .oneOf(["IMMEDIATELY", "NEXT_BILL_CYCLE"])) }
    private static var proratedPrice: Member { Member("proratedPrice", .integer(amount), required: false) }

    /// Every in-app request's members.
    private static var common: [Member] {
        [
            Member("operation", .oneOf(operations)), Member("version", .oneOf(["1"])),
            Member(
                "requestInfo",
                .object([
                    Member("requestReferenceId", .uuid), Member("appAccountToken", .uuid, required: false),
                    Member("consistencyToken", .string(maxLength: nil), required: false),
                ])),
        ]
    }

    /// Each operation's own members.
    static func members(of operation: String) -> [Member] {
        switch operation {
        case "CREATE_SUBSCRIPTION":
            [
                Member("currency", .string(maxLength: nil)),
                Member("descriptors", .object([description, displayName])),
                Member(
                    "items",
                    .array(
                        of: .object([sku, description, displayName, Member("price", .integer(amount)), offer]),
                        nonEmpty: true)),
                Member("taxCode", .string(maxLength: nil)), Member("period", .oneOf(periods)),
                Member("previousTransactionId", .string(maxLength: nil), required: false),
                Member("storefront", .string(maxLength: nil), required: false),
            ]
        case "CREATE_ONE_TIME_CHARGE":
            [
                Member("currency", .string(maxLength: nil)),
                Member("item", .object([sku, description, displayName, Member("price", .integer(amount))])),
                Member("taxCode", .string(maxLength: nil)),
                Member("storefront", .string(maxLength: nil), required: false),
            ]
        case "MODIFY_SUBSCRIPTION":
            [
                Member("transactionId", .string(maxLength: nil)), Member("retainBillingCycle", .boolean),
                Member(
                    "addItems",
                    .array(
                        of: .object([
                            sku, description, displayName, Member("price", .integer(amount)), offer, proratedPrice,
                        ]),
                        nonEmpty: true), required: false),
                Member(
                    "changeItems",
                    .array(
                        of: .object([
                            sku, description, displayName, Member("currentSKU", .string(maxLength: skuLength)),
                            Member("price", .integer(amount)),
                            Member("reason", .oneOf(["UPGRADE", "DOWNGRADE", "APPLY_OFFER"])),
                            effective, offer, proratedPrice,
                        ]), nonEmpty: true), required: false),
                Member("currency", .string(maxLength: nil), required: false),
                Member(
                    "descriptors",
                    .object([
                        Member("description", .string(maxLength: descriptionLength), required: false),
                        Member("displayName", .string(maxLength: displayNameLength), required: false),
                    ]), required: false),
                Member("periodChange", .object([effective, Member("period", .oneOf(periods))]), required: false),
                Member("removeItems", .array(of: .object([sku]), nonEmpty: true), required: false),
                Member("storefront", .string(maxLength: nil), required: false),
                Member("taxCode", .string(maxLength: nil), required: false),
            ]
        case "REACTIVATE_SUBSCRIPTION":
            [
                Member("transactionId", .string(maxLength: nil)),
                Member("items", .array(of: .object([sku]), nonEmpty: true), required: false),
                Member("storefront", .string(maxLength: nil), required: false),
            ]
        default: []
        }
    }

    /// The problems a request has, each naming its member: at most `limit` (the first ones).
    static func problems(_ request: [String: JSONValue], limit: Int = 5) -> [String] {
        var found: [String] = []
        var members = common
        if case .string(let operation)? = request["operation"] { members += self.members(of: operation) }
        check(request, members, path: "request", into: &found, limit: limit)
        return found
    }

    /// The problems of `object`'s `members`, each named by its path after `path` (none at the top).
    static func check(
        _ object: [String: JSONValue], _ members: [Member], path: String, into found: inout [String], limit: Int
    ) {
        for member in members where found.count < limit {
            let memberPath = path.isEmpty ? member.name : path + "." + member.name
            guard let value = object[member.name], value != .null else {
                if member.required { found.append("\(memberPath) is missing") }
                continue
            }
            check(value, member.shape, path: memberPath, into: &found, limit: limit)
        }
    }

    private static func check(_ value: JSONValue, _ shape: Shape, path: String, into found: inout [String], limit: Int)
    {
        guard found.count < limit else { return }
        switch (shape, value) {
        case (.string(let maxLength), .string(let text)):
            if text.isEmpty {
                found.append("\(path) is empty")
            } else if let maxLength, text.unicodeScalars.count > maxLength {
                found.append("\(path) is \(text.unicodeScalars.count) characters, more than Apple's \(maxLength)")
            }
        case (.uuid, .string(let text)):
            if UUID(uuidString: text) == nil { found.append("\(path) is not a UUID") }
        case (.integer(let range), .integer(let number)):
            if !range.contains(number) {
                found.append(
                    "\(path) is \(number), expected "
                        + (range.upperBound == Int64.max
                            ? "at least \(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"))
            }
        case (.boolean, .bool):
            return
        case (.jws, .string(let text)):
            if !PayloadDisplay.isCompactJWS(text) {
                found.append("\(path) is not a compact JWS (header.payload.signature)")
            }
        case (.oneOf(let values), .string(let text)):
            if !values.contains(text) {
                found.append("\(path) is '\(Excerpt.of(text))', expected \(values.joined(separator: ", "))")
            }
        case (.object(let members), .object(let object)):
            check(object, members, path: path, into: &found, limit: limit)
        case (.array(let element, let nonEmpty), .array(let elements)):
            if nonEmpty, elements.isEmpty { found.append("\(path) is empty, expected at least one") }
            for (index, item) in elements.enumerated() where found.count < limit {
                check(item, element, path: "\(path)[\(index)]", into: &found, limit: limit)
            }
        default:
            found.append("\(path) is \(value.kindDescription), expected \(expected(shape))")
        }
    }

    private static func expected(_ shape: Shape) -> String {
        switch shape {
        case .string: "a string"
        case .uuid: "a UUID string"
        case .integer: "an integer"
        case .boolean: "true or false"
        case .oneOf(let values): "one of \(values.joined(separator: ", "))"
        case .jws: "a compact JWS string"
        case .object: "an object"
        case .array: "an array"
        }
    }
}
