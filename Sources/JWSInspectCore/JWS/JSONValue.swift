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
        if var array = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !array.isAtEnd { values.append(try array.decode(JSONValue.self)) }
            self = .array(values)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            var values: [String: JSONValue] = [:]
            for key in object.allKeys { values[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(values)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? single.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    /// Decodes a JSON text; throws Foundation's error for anything that is not JSON.
    public static func decode(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
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

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
