/// A direct reading of the JSON objects App Store payloads are, into the `JSONValue`s
/// Foundation's `JSONDecoder` would make of them, without Foundation's cost per member
/// (its containers, keys and failed attempts were most of a result's rendering time).
///
/// It reads only what it is sure to read as Foundation does, and answers nil for anything
/// else, so that the caller asks Foundation: a number other than a plain integer that fits in
/// 64 bits (fractions, exponents, `-0`, integers beyond 64 bits), a `\u` escape of a UTF-16
/// surrogate, a raw control character, bytes that are not UTF-8, nesting over `maximumDepth`,
/// two members whose names Swift deems equal, or anything that is not JSON. It reads nothing
/// `JSONSyntax.strictCheck` refuses (RFC 8259 exactly: no trailing comma, leading zero or
/// unknown escape; no member named twice; no raw control character), so a payload it reads
/// is not checked again (`CompactJWS`; `FastJSONObjectTests` holds the two together).
/// Linear in the text: each byte is read once.
struct FastJSONObject {
    /// Deeper texts are Foundation's (and its limit's message).
    static let maximumDepth = 64

    /// The members of the object `bytes` are, or nil: see the type's comment.
    static func parse(_ bytes: [UInt8]) -> [String: JSONValue]? {
        parseNotingLayout(bytes)?.members
    }

    /// `parse`, and whether the text is compact: no whitespace between its tokens (and, as
    /// every text read here, no raw control character in a string), so that it is written in
    /// JSON Lines exactly as it is.
    static func parseNotingLayout(_ bytes: [UInt8]) -> (members: [String: JSONValue], isCompact: Bool)? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = FastJSONObject(bytes: buffer)
            reader.skipWhitespace()
            guard reader.peek == UInt8(ascii: "{"), let object = reader.object(depth: 0) else { return nil }
            reader.skipWhitespace()
            return reader.index == buffer.count ? (object, !reader.skippedWhitespace) : nil
        }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Whether whitespace stood between two tokens anywhere.
    private var skippedWhitespace = false

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09:
                index += 1
                skippedWhitespace = true
            default: return
            }
        }
    }

    private mutating func value(depth: Int) -> JSONValue? {
        switch peek {
        case UInt8(ascii: "{")?: return object(depth: depth).map(JSONValue.object)
        case UInt8(ascii: "[")?: return array(depth: depth)
        case UInt8(ascii: "\"")?: return string().map(JSONValue.string)
        case UInt8(ascii: "t")?: return literal("true", .bool(true))
        case UInt8(ascii: "f")?: return literal("false", .bool(false))
        case UInt8(ascii: "n")?: return literal("null", .null)
        default: return integer()
        }
    }

    private mutating func object(depth: Int) -> [String: JSONValue]? {
        guard depth < Self.maximumDepth else { return nil }
        index += 1  // {
        var members: [String: JSONValue] = [:]
        // App Store payloads have a score of members: room for them, not a resize at 3, 6, 12.
        members.reserveCapacity(depth == 0 ? 24 : 4)
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return members
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\""), let key = string() else { return nil }
            // A long name that is not ASCII: the strict check refuses it, before Swift hashes it.
            if key.utf8.count > MemberNames.nonASCIILimit, key.utf8.contains(where: { $0 >= 0x80 }) { return nil }
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { return nil }
            index += 1
            skipWhitespace()
            guard let value = value(depth: depth + 1) else { return nil }
            // Two names Swift deems equal (canonically equivalent Unicode): Foundation's way.
            guard members.updateValue(value, forKey: key) == nil else { return nil }
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "}")?:
                index += 1
                return members
            default: return nil
            }
        }
    }

    private mutating func array(depth: Int) -> JSONValue? {
        guard depth < Self.maximumDepth else { return nil }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            guard let element = value(depth: depth + 1) else { return nil }
            elements.append(element)
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "]")?:
                index += 1
                return .array(elements)
            default: return nil
            }
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return nil }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
        index += count
        return value
    }

    /// `-?(0|[1-9][0-9]*)` that fits in 64 bits and is not `-0`, else nil.
    private mutating func integer() -> JSONValue? {
        var position = index
        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let digitsStart = position
        var magnitude: UInt64 = 0
        while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
            let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(bytes[position] - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            magnitude = sum
            position += 1
        }
        let digits = position - digitsStart
        guard digits > 0, digits == 1 || bytes[digitsStart] != UInt8(ascii: "0") else { return nil }
        if position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        let value: Int64
        if negative {
            guard magnitude != 0, magnitude <= UInt64(Int64.max) + 1 else { return nil }
            value = magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        } else {
            guard magnitude <= UInt64(Int64.max) else { return nil }
            value = Int64(magnitude)
        }
        index = position
        return .integer(value)
    }

    /// A string at `index` (its opening quote), unescaped; nil for a raw control character, a
    /// surrogate escape, an unknown escape or bytes that are not UTF-8.
    private mutating func string() -> String? {
        index += 1  // "
        let start = index
        // The common case, no escape: the bytes are the string. ASCII (every byte below 0x80, as
        // in App Store payloads) is UTF-8 already: made a String without the generic validation.
        var high: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: bytes[start..<index])
                let text = high < 0x80 ? String(decoding: run, as: UTF8.self) : String(validating: run, as: UTF8.self)
                index += 1
                return text
            }
            high |= byte
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        var unescaped = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: unescaped, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                if let plain = JSONEscape.byte(escapedBy: escape) {
                    unescaped.append(plain)
                } else if escape == UInt8(ascii: "u"), let scalar = hexScalar() {
                    unescaped.append(contentsOf: String(Character(scalar)).utf8)
                } else {
                    return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                unescaped.append(byte)
            }
        }
        return nil
    }

    /// The four hex digits after `\u`, as a scalar; nil for a surrogate (Foundation's pairs and
    /// its refusals of lone ones stay Foundation's) or a digit that is not hex.
    private mutating func hexScalar() -> Unicode.Scalar? {
        guard bytes.count - index >= 4 else { return nil }
        var code: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return Unicode.Scalar(code)  // nil for D800-DFFF
    }
}
