internal import FoundationEssentials

/// A JSON value decoded with Foundation's `JSONDecoder`, kept `Sendable`.
///
/// Used to read fields; the exact signed bytes are kept separately (`DecodedSegment.bytes`)
/// so that output can show the payload exactly as signed.
package enum JSONValue: Sendable, Equatable, Decodable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    /// An integral number that fits in 64 bits.
    case integer(Int64)
    /// Any other number (fractions, exponents, integers beyond 64 bits).
    case double(Double)
    case bool(Bool)
    case null

    package init(from decoder: any Decoder) throws {
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
    package static let maximumDepth = 512

    /// Why `bytes` failed to decode, in one line, naming the nesting limit when that is the cause.
    static func describeFailure(_ error: any Error, bytes: [UInt8]) -> String {
        let depth = nestingDepth(bytes)
        if depth > maximumDepth {
            return "objects and arrays nested \(depth) levels deep, over the \(maximumDepth)-level limit"
        }
        return CompactJWS.describe(error)
    }

    /// Decodes a JSON text from input (a document, an API answer) and checks that no object in
    /// it names a member twice, which Foundation lets through keeping one of them.
    ///
    /// - Throws: Foundation's error for anything that is not JSON; `DuplicateMember` for a
    ///   member named twice; `Unchecked` for a text Foundation reads and the member check
    ///   cannot (not UTF-8).
    package static func decode(_ bytes: [UInt8], budget: Int? = nil) throws -> JSONValue {
        if let budget {
            let estimate = bytes.withUnsafeBufferPointer { TreeCost.estimate($0) }
            if estimate.bytes > budget { throw TreeCost.TooDense(values: estimate.values, size: bytes.count) }
        }
        // Members first, so that names too costly to compare (`MemberNames`) are refused before
        // Foundation's decoder hashes them: a 320 KB name of combining marks took it 131 s.
        let (duplicate, problem, refusedNames) = bytes.withUnsafeBufferPointer { JSONSyntax.memberCheck($0) }
        if let duplicate { throw duplicate }
        if let refusedNames { throw RefusedNames(description: refusedNames) }
        let value = try decodeUnchecked(bytes)
        if let problem { throw Unchecked(description: "its members cannot be checked: \(problem)") }
        return value
    }

    /// Foundation's reading of a JSON text, members named twice not looked for (the caller has
    /// refused them, or `decode` does after).
    static func decodeUnchecked(_ bytes: [UInt8]) throws -> JSONValue {
        // The bytes are only read while decoding: no copy into the Data (documents reach 64 MiB).
        try bytes.withUnsafeBytes { raw in
            let data = Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!),
                count: raw.count, deallocator: .none)
            return try JSONDecoder().decode(JSONValue.self, from: data)
        }
    }

    /// The bytes a member name that is not ASCII may have (`MemberNames.nonASCIILimit`).
    package static var nonASCIIMemberNameLimit: Int { MemberNames.nonASCIILimit }

    /// What decoding a JSON text costs in memory, estimated before it is decoded: Foundation's
    /// decoder and the tree it makes take about 56 bytes per value and 128 more per object,
    /// whatever the value's own bytes (`[1,1,…]` of 64 MiB made 1.7 GB, `[{"x":1},…]` 2.2 GB),
    /// so a document of many small values is refused before it is read, not held.
    package enum TreeCost {
        /// Bytes per value (a separator, a member name's colon or a container opening marks one).
        static let perValue = 56
        /// Bytes more per object.
        static let perObject = 128

        /// The values a text holds and the bytes its tree would take: one linear pass, strings
        /// skipped (their escapes too).
        package static func estimate(_ bytes: UnsafeBufferPointer<UInt8>) -> (values: Int, bytes: Int) {
            var values = 1
            var objects = 0
            var inString = false
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if inString {
                    if byte == UInt8(ascii: "\\") {
                        index += 1
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                } else {
                    switch byte {
                    case UInt8(ascii: "\""): inString = true
                    case UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "["): values += 1
                    case UInt8(ascii: "{"):
                        values += 1
                        objects += 1
                    default: break
                    }
                }
                index += 1
            }
            return (values, values * perValue + objects * perObject)
        }

        /// A document whose tree would take more than the memory allowed for it.
        package struct TooDense: CostRefusal {
            package let values: Int
            package let size: Int

            package var description: String {
                "it holds about \(values) values in \(size) bytes, too many to read within the memory allowed "
                    + "for one record (split it, e.g. jq -c '.[]')"
            }
        }
    }

    /// A JSON text refused before it is decoded because reading it would cost too much (memory:
    /// `TreeCost.TooDense`; time: `RefusedNames`): refused whole, nothing in it read.
    package protocol CostRefusal: Error, CustomStringConvertible {}

    /// A text refused for its member names before it is decoded (`MemberNames`: names that are
    /// not ASCII, too long one by one or all together, cost more than linear time to compare).
    package struct RefusedNames: CostRefusal {
        package let description: String
    }

    /// A text Foundation decoded whose members could not be checked for duplicates.
    struct Unchecked: Error, CustomStringConvertible {
        let description: String
    }

    /// Decodes a JSON text that should be an object (a JWS header or payload), the fast way:
    /// nil when it is valid JSON of another kind; throws Foundation's error when it is not JSON.
    /// Members named twice are not looked for: the text must have passed
    /// `JSONSyntax.strictCheck` (or `decode`) first, which refuses them.
    package static func decodeObject(_ bytes: [UInt8]) throws -> [String: JSONValue]? {
        if let object = FastJSONObject.parse(bytes) { return object }
        let data = Data(bytes)
        let decoder = JSONDecoder()
        if let object = try? decoder.decode(ObjectMembers.self, from: data) { return object.values }
        guard case .object(let object) = try decoder.decode(JSONValue.self, from: data) else { return nil }
        return object
    }

    /// One member decoded as the type Apple uses for that field name, else as any kind.
    static func member(_ key: AnyKey, of object: KeyedDecodingContainer<AnyKey>) throws -> JSONValue {
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

    package subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    package var objectValue: [String: JSONValue]? {
        if case .object(let object) = self { return object }
        return nil
    }

    package var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The value as a number (integers converted), or nil.
    package var numberValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The kind of value, for messages ("a string", "an object").
    package var kindDescription: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .integer, .double: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }

    struct AnyKey: CodingKey {
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
