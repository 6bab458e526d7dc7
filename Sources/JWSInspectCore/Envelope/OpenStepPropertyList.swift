/// A bounded reader of OpenStep ("old-style", NeXTSTEP) property list text, the format of a
/// StoreKit 1 transaction receipt (`{ "purchase-info" = "…"; }`): dictionaries, arrays and
/// strings, quoted (`"…"` or `'…'`, with the escapes Core Foundation reads) or unquoted
/// (letters, digits and `_ $ / : . -`), and `//` and `/* */` comments.
///
/// Why not Foundation: FoundationEssentials' `PropertyListDecoder` reads this format on Linux,
/// but into a dictionary, so the members' order is lost (the payload is shown as written) and
/// a key named twice is silently the last one (here it is refused: which one counts would be
/// a guess). What it holds besides strings (data, `<0fab>`) is refused too: a transaction
/// receipt holds strings only.
///
/// Byte-based and linear: every byte is read once (the input is checked as UTF-8 first), and
/// dictionaries and arrays nest `maximumDepth` deep at most, so the recursion is bounded. The
/// caller bounds the input's size before reading it.
package enum OpenStepPropertyList {
    /// A value: a string, an array, or a dictionary's members in the order they were written.
    package indirect enum Value: Sendable, Equatable {
        case string(String)
        case array([Value])
        case dictionary([Member])

        /// "a string", "an array", "a dictionary": for messages.
        package var kindDescription: String {
            switch self {
            case .string: "a string"
            case .array: "an array"
            case .dictionary: "a dictionary"
            }
        }

        /// The string, when the value is one.
        package var stringValue: String? {
            if case .string(let text) = self { return text }
            return nil
        }
    }

    /// One member of a dictionary.
    package struct Member: Sendable, Equatable {
        package let key: String
        package let value: Value

        package init(key: String, value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// How deep dictionaries and arrays nest at most (the outermost is depth 1). A transaction
    /// receipt's nest two deep.
    package static let maximumDepth = 16

    /// Why text is not a property list this reader takes. Each description is a fragment said of
    /// the list ("is not UTF-8 text"), for the caller to name it.
    package enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        case notUTF8
        /// Nothing but whitespace and comments.
        case empty
        /// `found` (a quoted character, or a byte in hex) on `line` where `expected` belongs.
        case unexpected(found: String, line: Int, expected: String)
        /// The text ends where `expected` belongs.
        case unexpectedEnd(expected: String)
        /// A quoted string that opens on `line` and never closes.
        case unterminatedString(line: Int)
        /// A `/*` comment that opens on `line` and never closes.
        case unterminatedComment(line: Int)
        /// Data (`<0fab>`) on `line`: not a string.
        case data(line: Int)
        /// A dictionary or array on `line` deeper than `limit`.
        case tooDeep(line: Int, limit: Int)
        /// A dictionary naming `key` twice, the second time on `line`.
        case duplicateKey(String, line: Int)
        /// An escape this reader does not take (`\200`: a NeXTSTEP-encoded byte; a lone UTF-16
        /// surrogate), and why.
        case escape(String, line: Int, why: String)
        /// Text after the value that ends the list, on `line`.
        case trailingText(line: Int)

        package var description: String {
            switch self {
            case .notUTF8: "is not UTF-8 text"
            case .empty: "is empty"
            case .unexpected(let found, let line, let expected):
                "has \(found) on line \(line) where \(expected) belongs"
            case .unexpectedEnd(let expected): "ends where \(expected) belongs"
            case .unterminatedString(let line): "has a quoted string from line \(line) that never ends"
            case .unterminatedComment(let line): "has a /* comment from line \(line) that never ends"
            case .data(let line): "holds data (<…>) on line \(line), where only strings are read"
            case .tooDeep(let line, let limit):
                "nests dictionaries and arrays more than \(limit) deep (line \(line))"
            case .duplicateKey(let key, let line):
                "names \"\(Excerpt.of(key))\" twice in one dictionary (line \(line)): which one counts would be a guess"
            case .escape(let text, let line, let why): "has the escape \(text) on line \(line), \(why)"
            case .trailingText(let line): "has text after its end, on line \(line)"
            }
        }
    }

    /// The value `bytes` hold: one value, with only whitespace and comments around it.
    ///
    /// - Parameter maximumDepth: how deep dictionaries and arrays may nest (tests lower it).
    /// - Throws: `ParseError` for anything else.
    package static func parse(_ bytes: [UInt8], maximumDepth: Int = maximumDepth) throws(ParseError) -> Value {
        guard String(validating: bytes, as: UTF8.self) != nil else { throw .notUTF8 }
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(ParseError) -> Value in
                var reader = Reader(bytes: buffer, maximumDepth: maximumDepth)
                guard try reader.skipSpace() else { throw .empty }
                let value = try reader.value(depth: 0, expected: "a string, '{' or '('")
                if try reader.skipSpace() { throw .trailingText(line: reader.line) }
                return value
            }
        }
        return try result.get()
    }

    /// The reading position in the text, and the line it is on.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let maximumDepth: Int
        var index = 0
        var line = 1

        init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        /// Skips whitespace and comments; true when a byte remains after them.
        mutating func skipSpace() throws(ParseError) -> Bool {
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x0A {
                    line += 1
                    index += 1
                } else if byte == 0x20 || (0x09...0x0D).contains(byte) {
                    index += 1
                } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                    while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
                } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                    let opened = line
                    index += 2
                    while true {
                        guard index + 1 < bytes.count else { throw .unterminatedComment(line: opened) }
                        if bytes[index] == UInt8(ascii: "*"), bytes[index + 1] == UInt8(ascii: "/") { break }
                        if bytes[index] == 0x0A { line += 1 }
                        index += 1
                    }
                    index += 2
                } else {
                    return true
                }
            }
            return false
        }

        /// The value at the reading position (whitespace skipped already), `depth` containers deep.
        mutating func value(depth: Int, expected: String) throws(ParseError) -> Value {
            guard index < bytes.count else { throw .unexpectedEnd(expected: expected) }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                guard depth < maximumDepth else { throw .tooDeep(line: line, limit: maximumDepth) }
                index += 1
                return .dictionary(try dictionary(depth: depth + 1))
            case UInt8(ascii: "("):
                guard depth < maximumDepth else { throw .tooDeep(line: line, limit: maximumDepth) }
                index += 1
                return .array(try array(depth: depth + 1))
            case UInt8(ascii: "<"):
                throw .data(line: line)
            default:
                guard let string = try string() else {
                    throw .unexpected(found: Self.shown(bytes[index]), line: line, expected: expected)
                }
                return .string(string)
            }
        }

        /// A dictionary's members, after its `{`, to its `}`.
        mutating func dictionary(depth: Int) throws(ParseError) -> [Member] {
            var members: [Member] = []
            var keys: Set<String> = []
            while true {
                guard try skipSpace() else { throw .unexpectedEnd(expected: "a key or '}'") }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return members
                }
                let keyLine = line
                guard let key = try string() else {
                    throw .unexpected(found: Self.shown(bytes[index]), line: line, expected: "a key or '}'")
                }
                guard keys.insert(key).inserted else { throw .duplicateKey(key, line: keyLine) }
                try expect(UInt8(ascii: "="), "'=' after the key")
                guard try skipSpace() else { throw .unexpectedEnd(expected: "a value") }
                let value = try value(depth: depth, expected: "a value")
                try expect(UInt8(ascii: ";"), "';' after the value")
                members.append(Member(key: key, value: value))
            }
        }

        /// An array's elements, after its `(`, to its `)` (a comma may follow the last one).
        mutating func array(depth: Int) throws(ParseError) -> [Value] {
            var elements: [Value] = []
            guard try skipSpace() else { throw .unexpectedEnd(expected: "a value or ')'") }
            if bytes[index] == UInt8(ascii: ")") {
                index += 1
                return elements
            }
            while true {
                elements.append(try value(depth: depth, expected: "a value or ')'"))
                guard try skipSpace() else { throw .unexpectedEnd(expected: "',' or ')'") }
                switch bytes[index] {
                case UInt8(ascii: ")"):
                    index += 1
                    return elements
                case UInt8(ascii: ","):
                    index += 1
                    guard try skipSpace() else { throw .unexpectedEnd(expected: "a value or ')'") }
                    if bytes[index] == UInt8(ascii: ")") {
                        index += 1
                        return elements
                    }
                default:
                    throw .unexpected(found: Self.shown(bytes[index]), line: line, expected: "',' or ')'")
                }
            }
        }

        /// Skips whitespace and comments, then takes `byte`.
        mutating func expect(_ byte: UInt8, _ expected: String) throws(ParseError) {
            guard try skipSpace() else { throw .unexpectedEnd(expected: expected) }
            guard bytes[index] == byte else {
                throw .unexpected(found: Self.shown(bytes[index]), line: line, expected: expected)
            }
            index += 1
        }

        /// A quoted or unquoted string at the reading position; nil when none starts there.
        mutating func string() throws(ParseError) -> String? {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                index += 1
                return try quoted(byte)
            }
            guard Self.isUnquoted(byte) else { return nil }
            let start = index
            while index < bytes.count, Self.isUnquoted(bytes[index]) { index += 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        }

        /// A quoted string's text, after its opening `quote`, to its closing one.
        private mutating func quoted(_ quote: UInt8) throws(ParseError) -> String {
            let opened = line
            var text: [UInt8] = []
            // Runs without an escape are copied whole.
            var start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == quote {
                    text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                    index += 1
                    return String(decoding: text, as: UTF8.self)
                }
                if byte == 0x0A { line += 1 }
                guard byte == UInt8(ascii: "\\") else {
                    index += 1
                    continue
                }
                text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                index += 1
                guard index < bytes.count else { break }
                try escape(into: &text)
                start = index
            }
            throw .unterminatedString(line: opened)
        }

        /// The escape after a backslash, as Core Foundation reads it: `\a \b \f \n \r \t \v`,
        /// one to three octal digits (ASCII only here), `\U` and one to four hex digits (a UTF-16
        /// unit; a surrogate pair as two escapes), any other character as itself.
        private mutating func escape(into text: inout [UInt8]) throws(ParseError) {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "a"): text.append(0x07)
            case UInt8(ascii: "b"): text.append(0x08)
            case UInt8(ascii: "f"): text.append(0x0C)
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "v"): text.append(0x0B)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = Int(byte - UInt8(ascii: "0"))
                var digits = 1
                while digits < 3, index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[index]) {
                    value = value * 8 + Int(bytes[index] - UInt8(ascii: "0"))
                    index += 1
                    digits += 1
                }
                guard value < 0x80 else {
                    throw .escape(
                        "\\" + String(value, radix: 8), line: line,
                        why: "a NeXTSTEP-encoded byte, which jwsinspect does not read")
                }
                text.append(UInt8(value))
            case UInt8(ascii: "U"):
                let unit = try hexUnit()
                let scalar: Unicode.Scalar?
                switch unit {
                case 0xD800...0xDBFF:
                    // A high surrogate: a low one must follow as the next escape.
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "U")
                    else { throw loneSurrogate(unit) }
                    index += 2
                    let low = try hexUnit()
                    guard (0xDC00...0xDFFF).contains(low) else { throw loneSurrogate(unit) }
                    scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                case 0xDC00...0xDFFF:
                    throw loneSurrogate(unit)
                default:
                    scalar = Unicode.Scalar(unit)
                }
                if let scalar { text.append(contentsOf: scalar.utf8) }
            case 0x0A:
                line += 1
                text.append(byte)
            default:
                // Any other character as itself (a multi-byte one's other bytes follow as they are).
                text.append(byte)
            }
        }

        /// One to four hex digits after `\U`: a UTF-16 code unit.
        private mutating func hexUnit() throws(ParseError) -> UInt32 {
            var value: UInt32 = 0
            var digits = 0
            while digits < 4, index < bytes.count, let digit = Self.hexValue(bytes[index]) {
                value = value << 4 | UInt32(digit)
                index += 1
                digits += 1
            }
            guard digits > 0 else { throw .escape("\\U", line: line, why: "without hex digits") }
            return value
        }

        private func loneSurrogate(_ unit: UInt32) -> ParseError {
            .escape(
                "\\U" + String(unit, radix: 16, uppercase: true), line: line,
                why: "half of a UTF-16 surrogate pair without its other half")
        }

        private static func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }

        /// A character of an unquoted string: letters, digits and `_ $ / : . -` (Core Foundation's set).
        static func isUnquoted(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "/"),
                UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "-"):
                true
            default: false
            }
        }

        /// A byte as a message shows it: `'='`, or `byte 0x80` when it is not printable ASCII.
        static func shown(_ byte: UInt8) -> String {
            (0x21...0x7E).contains(byte)
                ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x" + String(byte, radix: 16, uppercase: true)
        }
    }
}
