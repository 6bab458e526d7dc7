internal import FoundationEssentials

/// A JSON value decoded with Foundation's `JSONDecoder`, kept `Sendable`.
///
/// Used to read fields; the exact signed bytes are kept separately (`DecodedSegment.bytes`)
/// so that output can show the payload exactly as signed.
public enum JSONValue: Sendable, Equatable, Decodable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    /// An integral number that fits in 64 bits.
    case integer(Int64)
    /// Any other number (fractions, exponents, integers beyond 64 bits).
    case double(Double)
    case bool(Bool)
    case null

    public init(from decoder: any Decoder) throws {
        // Each failed attempt throws (and errors are costly), so the common kinds go first:
        // payload fields are mostly strings and integers.
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(String.self) {
            self = .string(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .integer(value)
        } else if let object = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(try Self.members(of: object))
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Double.self) {
            self = .double(value)
        } else {
            var array = try decoder.unkeyedContainer()
            var values: [JSONValue] = []
            while !array.isAtEnd { values.append(try array.decode(JSONValue.self)) }
            self = .array(values)
        }
    }

    /// The deepest nesting of objects and arrays in `bytes`, outside strings. Foundation's
    /// parser refuses more than `maximumDepth` levels; this names that limit in messages.
    static func nestingDepth(_ bytes: [UInt8]) -> Int {
        var depth = BracketDepth()
        depth.feed(bytes)
        return depth.deepest
    }

    /// The deepest nesting Foundation's JSON parser accepts.
    public static let maximumDepth = 512

    /// Why `bytes` failed to decode, in one line, naming the nesting limit when that is the cause.
    static func describeFailure(_ error: any Error, bytes: [UInt8]) -> String {
        let depth = nestingDepth(bytes)
        if depth > maximumDepth {
            return "objects and arrays nested \(depth) levels deep, over the \(maximumDepth)-level limit"
        }
        return CompactJWS.describe(error)
    }

    /// Decodes a JSON text; throws Foundation's error for anything that is not JSON.
    public static func decode(_ bytes: [UInt8]) throws -> JSONValue {
        // The bytes are only read while decoding: no copy into the Data (documents reach 64 MiB).
        try bytes.withUnsafeBytes { raw in
            let data = Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!),
                count: raw.count, deallocator: .none)
            return try JSONDecoder().decode(JSONValue.self, from: data)
        }
    }

    /// Decodes a JSON text that should be an object (a JWS header or payload), the fast way:
    /// nil when it is valid JSON of another kind; throws Foundation's error when it is not JSON.
    public static func decodeObject(_ bytes: [UInt8]) throws -> [String: JSONValue]? {
        let data = Data(bytes)
        let decoder = JSONDecoder()
        if let object = try? decoder.decode(ObjectMembers.self, from: data) { return object.values }
        guard case .object(let object) = try decoder.decode(JSONValue.self, from: data) else { return nil }
        return object
    }

    /// Like `decodeObject(_:)`, but decodes only the members the selection names, and
    /// records the members that recognise the kind as `null` (the whole text is still
    /// parsed, so malformed JSON is still refused).
    ///
    /// - Returns: the members, and the kind when the selection recognises it; nil when the
    ///   text is JSON but not an object.
    static func decodeObject(_ bytes: [UInt8], selection: MemberSelection) throws
        -> (members: [String: JSONValue], kind: PayloadKind?)?
    {
        // The bytes are only read while decoding: no copy into the Data.
        let selected = bytes.withUnsafeBytes { raw -> SelectedMembers? in
            let data = Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!),
                count: raw.count, deallocator: .none)
            return try? selection.decoder.decode(SelectedMembers.self, from: data, configuration: selection.plan)
        }
        if let selected { return (selected.values, selected.kind) }
        // Not an object, not JSON, or a member of a surprising type: the slow, thorough way.
        guard case .object(let object) = try decode(bytes) else { return nil }
        var values: [String: JSONValue] = [:]
        for key in selection.values { values[key] = object[key] }
        var kind: PayloadKind?
        if selection.plan.recognition {
            kind = PayloadKind.recognise { name in
                guard object[name] != nil else { return false }
                if values[name] == nil { values[name] = JSONValue.null }
                return true
            }
        }
        return (values, kind)
    }

    /// One member decoded as the type Apple uses for that field name, else as any kind.
    fileprivate static func member(_ key: AnyKey, of object: KeyedDecodingContainer<AnyKey>) throws -> JSONValue {
        let value: JSONValue?
        switch expectedKind(of: key.stringValue) {
        case .integer: value = (try? object.decode(Int64.self, forKey: key)).map(JSONValue.integer)
        case .bool: value = (try? object.decode(Bool.self, forKey: key)).map(JSONValue.bool)
        case .object: value = (try? object.decode(ObjectMembers.self, forKey: key)).map { .object($0.values) }
        case .string: value = (try? object.decode(String.self, forKey: key)).map(JSONValue.string)
        }
        return try value ?? object.decode(JSONValue.self, forKey: key)
    }

    /// An object's members. Every failed decoding attempt throws, and throwing is costly, so
    /// each member is first decoded as the type Apple uses for that field name (integers for
    /// dates and prices, booleans for flags, objects for `data`…), strings otherwise; only a
    /// surprise falls back to trying every kind.
    fileprivate static func members(of object: KeyedDecodingContainer<AnyKey>) throws -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        values.reserveCapacity(object.allKeys.count)
        for key in object.allKeys {
            values[key.stringValue] = try member(key, of: object)
        }
        return values
    }

    private enum ExpectedKind { case string, integer, bool, object }

    private static let integerFields: Set<String> = [
        "price", "renewalPrice", "quantity", "appAppleId", "status", "offerType", "revocationReason", "autoRenewStatus",
        "expirationIntent", "priceIncreaseStatus", "revocationPercentage", "succeededCount", "failedCount",
    ]
    private static let boolFields: Set<String> = ["isUpgraded", "isInBillingRetryPeriod"]
    private static let objectFields = Set(NotificationBody.names + ["advancedCommerceInfo", "commitmentInfo"])

    private static func expectedKind(of name: String) -> ExpectedKind {
        if PayloadFields.isTimestamp(name) || integerFields.contains(name) { return .integer }
        if boolFields.contains(name) { return .bool }
        if objectFields.contains(name) { return .object }
        return .string
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let object) = self { return object }
        return nil
    }

    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The value as a number (integers converted), or nil.
    public var numberValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The kind of value, for messages ("a string", "an object").
    public var kindDescription: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .integer, .double: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }

    fileprivate struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// A JSON object decoded straight into members (no attempt at other kinds first).
private struct ObjectMembers: Decodable {
    let values: [String: JSONValue]

    init(from decoder: any Decoder) throws {
        values = try JSONValue.members(of: decoder.container(keyedBy: JSONValue.AnyKey.self))
    }
}

/// Only the members a `MemberSelection.Plan` names.
///
/// Each question to Foundation's keyed container costs a hash and a lookup, so the kind is
/// recognised first, members found absent are never asked about twice, and a notification's
/// bodies are asked about only when the payload is (or may be) a notification. The plan comes
/// as the decoding configuration, not in the decoder's user info, which every decode copies.
private struct SelectedMembers: DecodableWithConfiguration {
    let values: [String: JSONValue]
    /// The kind recognised from the members present (nil without recognition).
    let kind: PayloadKind?

    init(from decoder: any Decoder, configuration plan: MemberSelection.Plan) throws {
        let object = try decoder.container(keyedBy: JSONValue.AnyKey.self)
        var values: [String: JSONValue] = [:]
        values.reserveCapacity(8)
        // Presence for recognising the kind, asked in recognition order and only until it is decided.
        var kind = PayloadKind.unknown
        if plan.recognition {
            kind = PayloadKind.recognise { name in
                guard object.contains(JSONValue.AnyKey(stringValue: name)) else { return false }
                values[name] = JSONValue.null
                return true
            }
        }
        for name in plan.values(for: kind) {
            let key = JSONValue.AnyKey(stringValue: name)
            guard object.contains(key) else { continue }
            values[name] = try JSONValue.member(key, of: object)
        }
        self.values = values
        self.kind = plan.recognition ? kind : nil
    }
}

/// Which members of a payload to decode, and whether to note, as `null`, the members that
/// recognise the payload kind (only as many as recognition needs). Built once, reused for
/// every payload, with its own decoder.
final class MemberSelection: Sendable {
    /// What `SelectedMembers` is decoded with.
    final class Plan: Sendable {
        /// Members decoded whatever the kind.
        let values: [String]
        /// Members only a notification has (its bodies): decoded when the payload is
        /// recognised as a notification or not recognised, or always when `notificationValuesAlways`.
        let notificationValues: [String]
        let recognition: Bool
        /// Per recognised kind, the members still to ask about: recognising a kind proves the
        /// single-member alternatives of the kinds before it absent, and a notification's
        /// bodies matter only to notifications.
        private let valuesByKind: [PayloadKind: [String]]

        init(values: [String], notificationValues: [String], notificationValuesAlways: Bool, recognition: Bool) {
            self.values = values
            self.notificationValues = notificationValues
            self.recognition = recognition
            var valuesByKind: [PayloadKind: [String]] = [:]
            for kind in PayloadKind.allCases {
                let bodies = notificationValuesAlways || !recognition || kind == .notification || kind == .unknown
                var asked = bodies ? values + notificationValues : values
                if recognition {
                    let earlier = PayloadKind.recognitionRules.prefix { $0.kind != kind }
                    let absent = Set(earlier.flatMap { $0.alternatives.filter { $0.count == 1 }.flatMap { $0 } })
                    asked.removeAll { absent.contains($0) }
                }
                valuesByKind[kind] = asked
            }
            self.valuesByKind = valuesByKind
        }

        /// The members to decode once the payload is recognised as `kind`.
        func values(for kind: PayloadKind) -> [String] { valuesByKind[kind] ?? values + notificationValues }
    }

    let plan: Plan
    /// A decoder shared by every payload and thread (JSONDecoder is thread-safe): making one
    /// per payload costs more than deciding a member.
    let decoder = JSONDecoder()

    /// Every member named, in order.
    var values: [String] { plan.values + plan.notificationValues }

    init(values: [String], notificationValues: [String] = [], notificationValuesAlways: Bool = true, recognition: Bool)
    {
        plan = Plan(
            values: values, notificationValues: notificationValues,
            notificationValuesAlways: notificationValuesAlways, recognition: recognition)
    }
}
