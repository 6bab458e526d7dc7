/// Reading JSON text in order: `mint`'s templates and `--set` values.
extension OrderedJSON {
    /// Why a text is not the JSON `parse` reads: where and what, in one line.
    package struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// How deep `parse` lets a text nest.
    package static let maximumParseDepth = OrderedJSONParser.maximumDepth

    /// Parses one JSON text, keeping its objects' member order: strict (RFC 8259: no comments,
    /// no trailing commas, no duplicate members, UTF-8, raw control characters refused), nested
    /// at most `maximumParseDepth` deep. Integers that fit are `.integer`, other finite numbers
    /// `.double`; a number beyond a double's range is refused.
    package static func parse(_ bytes: [UInt8]) throws(ParseError) -> OrderedJSON {
        try OrderedJSONParser.parse(bytes)
    }
}

/// A strict recursive-descent JSON parser (RFC 8259) that keeps objects' member order.
/// Bounded: nesting at most `maximumDepth`, every number range-checked, linear in the text.
struct OrderedJSONParser {
    static let maximumDepth = 64

    let bytes: [UInt8]
    var index = 0

    static func parse(_ bytes: [UInt8]) throws(OrderedJSON.ParseError) -> OrderedJSON {
        var parser = OrderedJSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    func error(_ reason: String) -> OrderedJSON.ParseError {
        OrderedJSON.ParseError(description: "invalid JSON at byte \(index): \(reason)")
    }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    mutating func expect(_ literal: String) throws(OrderedJSON.ParseError) {
        for byte in literal.utf8 {
            guard peek == byte else { throw error("expected \(literal)") }
            index += 1
        }
    }

    mutating func value(depth: Int) throws(OrderedJSON.ParseError) -> OrderedJSON {
        guard depth < Self.maximumDepth else { throw error("nested over \(Self.maximumDepth) levels") }
        switch peek {
        case UInt8(ascii: "{")?: return .object(try object(depth: depth))
        case UInt8(ascii: "[")?:
            index += 1
            var elements: [OrderedJSON] = []
            skipWhitespace()
            if peek == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                if peek == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                }
                try expect(",")
            }
        case UInt8(ascii: "\"")?: return .string(try string())
        case UInt8(ascii: "t")?:
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f")?:
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n")?:
            try expect("null")
            return .null
        case nil: throw error("unexpected end of the text")
        default: return try number()
        }
    }

    /// An object's members; names compared as Swift compares strings (canonically equivalent
    /// names are one name), in a set so a template of many members stays linear.
    mutating func object(depth: Int) throws(OrderedJSON.ParseError) -> OrderedJSON.Object {
        index += 1
        var members: OrderedJSON.Members = []
        var names = Set<String>()
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return OrderedJSON.Object()
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try string()
            guard names.insert(key).inserted else { throw error("duplicate member \"\(key)\"") }
            skipWhitespace()
            try expect(":")
            skipWhitespace()
            members.append((key, try value(depth: depth + 1)))
            skipWhitespace()
            if peek == UInt8(ascii: "}") {
                index += 1
                return OrderedJSON.Object(distinct: members)
            }
            try expect(",")
        }
    }

    mutating func string() throws(OrderedJSON.ParseError) -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard let byte = peek else { throw error("unterminated string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: out, as: UTF8.self) else { throw error("invalid UTF-8") }
                return text
            case 0..<0x20: throw error("control character in a string")
            case UInt8(ascii: "\\"): try escape(into: &out)
            default: out.append(byte)
            }
        }
    }

    mutating func escape(into out: inout [UInt8]) throws(OrderedJSON.ParseError) {
        guard let byte = peek else { throw error("unterminated string") }
        index += 1
        if let plain = JSONEscape.byte(escapedBy: byte) { return out.append(plain) }
        guard byte == UInt8(ascii: "u") else { throw error("invalid escape") }
        var scalar = try hex4()
        if (0xD800..<0xDC00).contains(scalar) {
            try expect("\\u")
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw error("unpaired surrogate") }
        out += Array(String(Character(unicode)).utf8)
    }

    mutating func hex4() throws(OrderedJSON.ParseError) -> UInt32 {
        var scalar: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek, let digit = Character(UnicodeScalar(byte)).hexDigitValue else {
                throw error("invalid \\u escape")
            }
            scalar = scalar << 4 | UInt32(digit)
            index += 1
        }
        return scalar
    }

    mutating func number() throws(OrderedJSON.ParseError) -> OrderedJSON {
        let start = index
        var integral = true
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, (0x30...0x39).contains(first) else { throw error("unexpected character") }
        index += 1
        if first != 0x30 { skipDigits() }
        if peek == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard digits() else { throw error("expected digits after the decimal point") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            integral = false
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard digits() else { throw error("expected digits in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let integer = Int64(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else { throw error("number \(text) out of range") }
        return .double(double)
    }

    mutating func skipDigits() {
        while let byte = peek, (0x30...0x39).contains(byte) { index += 1 }
    }

    /// Skips digits; false when there was none.
    mutating func digits() -> Bool {
        let start = index
        skipDigits()
        return index > start
    }
}

/// JSON's one-character string escapes (RFC 8259 §7), for both readers of JSON text here
/// (`OrderedJSONParser`, `FastJSONObject`).
enum JSONEscape {
    /// The byte a backslash and `letter` stand for (`\n`: a line feed); nil for `u`, which four
    /// hex digits follow, and for a letter that makes no escape.
    static func byte(escapedBy letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): letter
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }
}
