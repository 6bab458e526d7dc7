/// JSON whose objects keep their members' order: the one JSON value jwsinspect writes. The
/// command line's output, a receipt's header and payload, and `mint`'s payloads and templates
/// are all this value, serialized by one writer (`OrderedJSON+Writer.swift`) and, where text
/// is read back in order (templates, `--set`), parsed by one parser (`OrderedJSON+Parser.swift`).
///
/// `JSONValue` stays what signed data is read as (Foundation's decoder, after `JSONSyntax`'s
/// strict check); the tests' `StrictJSON` stays an independent judge of both.
package indirect enum OrderedJSON: Sendable, Equatable {
    case object(Object)
    case array([OrderedJSON])
    case string(String)
    case integer(Int64)
    /// A number that is not an integer; written as `null` when it is not finite.
    case double(Double)
    case bool(Bool)
    case null
    /// A JSON text (already validated) inserted as is: only whitespace between its tokens is
    /// changed, so a payload is shown exactly as signed.
    case raw([UInt8])
    /// Text already serialized for the place it is written at (same mode and depth).
    case preformatted(String)

    /// Members in order, as `Object(distinct:)` takes them.
    package typealias Members = [(key: String, value: OrderedJSON)]

    /// An object's members, in order, with distinct keys.
    package struct Object: Sendable, Equatable, ExpressibleByArrayLiteral {
        package private(set) var members: Members

        /// An object with these members; a key repeated keeps its first place and its last value.
        package init(_ members: Members = []) {
            self.members = []
            for (key, value) in members { self[key] = value }
        }

        /// An object with these members as given: the caller's keys are distinct (output
        /// objects, whose names are written in code). Linear, unlike `init(_:)`.
        package init(distinct members: Members) {
            self.members = members
        }

        /// An object literal: its names are distinct (`init(distinct:)`).
        package init(arrayLiteral elements: (key: String, value: OrderedJSON)...) {
            self.members = elements
        }

        /// The member's value; setting replaces it in place, adds a new key at the end, and
        /// removes it when nil.
        package subscript(key: String) -> OrderedJSON? {
            get { members.first { $0.key == key }?.value }
            set {
                let index = members.firstIndex { $0.key == key }
                switch (index, newValue) {
                case (let index?, let value?): members[index].value = value
                case (let index?, nil): members.remove(at: index)
                case (nil, let value?): members.append((key, value))
                case (nil, nil): break
                }
            }
        }

        /// The keys, in order.
        package var keys: [String] { members.map(\.key) }

        /// Adds `value` under `key` when there is one (optional members).
        package mutating func add(_ key: String, _ value: OrderedJSON?) {
            if let value { self[key] = value }
        }

        package static func == (lhs: Object, rhs: Object) -> Bool {
            lhs.members.count == rhs.members.count
                && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        }
    }

    /// A decoded value, its objects' members sorted by key (a `JSONValue` object has no order).
    package init(_ value: JSONValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .integer(let number): self = .integer(number)
        case .double(let number): self = .double(number)
        case .bool(let flag): self = .bool(flag)
        case .null: self = .null
        case .array(let values): self = .array(values.map(OrderedJSON.init))
        case .object(let members):
            self = .object(Object(distinct: members.sorted { $0.key < $1.key }.map { ($0.key, OrderedJSON($0.value)) }))
        }
    }

    /// "a string", "a number"…: for messages.
    package var kindName: String {
        switch self {
        case .string: "a string"
        case .integer, .double: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        case .raw, .preformatted: "a JSON text"
        }
    }
}
