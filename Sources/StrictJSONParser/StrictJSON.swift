internal import Foundation

/// A strict RFC 8259 parser, written for the tests and the fuzz harness and independent of the
/// code under test, to check that every JSON output is JSON: `JSONSerialization` and `JSONDecoder` accept
/// trailing commas and raw control characters, so they cannot be the judge.
package enum StrictJSON {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        /// The member an object named twice, when that is the failure (RFC 8259 leaves the
        /// meaning open; no JSON jwsinspect accepts or writes may hold one).
        package var duplicateMember: String?
    }

    /// Every line of `text` (JSON Lines) parsed as one JSON object; fails on any other line.
    package static func lines(_ text: String) throws -> [[String: Any]] {
        var bytes = Array(text.utf8)
        guard bytes.isEmpty || bytes.last == UInt8(ascii: "\n") else {
            throw Failure(description: "output does not end with a newline")
        }
        if !bytes.isEmpty { bytes.removeLast() }
        guard !bytes.isEmpty else { return [] }
        return try bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated().map {
            number, line in
            guard let object = try parse(Array(line)) as? [String: Any] else {
                throw Failure(description: "line \(number + 1) is not a JSON object")
            }
            return object
        }
    }

    /// A stream of JSON values separated by whitespace (the pretty `--format json` output).
    package static func documents(_ text: String) throws -> [Any] {
        var parser = Parser(bytes: Array(text.utf8))
        var values: [Any] = []
        parser.skipWhitespace()
        while parser.index < parser.bytes.count {
            values.append(try parser.value(depth: 0))
            parser.skipWhitespace()
        }
        return values
    }

    /// One JSON text.
    package static func parse(_ bytes: [UInt8]) throws -> Any {
        guard String(validating: bytes, as: UTF8.self) != nil else { throw Failure(description: "not UTF-8") }
        var parser = Parser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("text after the value") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        func failure(_ what: String) -> Failure {
            Failure(description: "\(what) at byte \(index)")
        }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        mutating func expect(_ byte: UInt8) throws {
            guard index < bytes.count, bytes[index] == byte else { throw failure("expected '\(UnicodeScalar(byte))'") }
            index += 1
        }

        mutating func value(depth: Int) throws -> Any {
            guard depth < 1000 else { throw failure("too deep") }
            guard index < bytes.count else { throw failure("truncated") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var object: [String: Any] = [:]
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return object
                }
                while true {
                    skipWhitespace()
                    let key = try string()
                    guard object[key] == nil else {
                        var failure = failure("member \"\(key)\" named twice")
                        failure.duplicateMember = key
                        throw failure
                    }
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"))
                    skipWhitespace()
                    object[key] = try value(depth: depth + 1)
                    skipWhitespace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    try expect(UInt8(ascii: "}"))
                    return object
                }
            case UInt8(ascii: "["):
                index += 1
                var array: [Any] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return array
                }
                while true {
                    skipWhitespace()
                    array.append(try value(depth: depth + 1))
                    skipWhitespace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    try expect(UInt8(ascii: "]"))
                    return array
                }
            case UInt8(ascii: "\""):
                return try string()
            case UInt8(ascii: "t"):
                try word("true")
                return true
            case UInt8(ascii: "f"):
                try word("false")
                return false
            case UInt8(ascii: "n"):
                try word("null")
                return NSNull()
            default:
                return try number()
            }
        }

        mutating func word(_ text: String) throws {
            for byte in text.utf8 { try expect(byte) }
        }

        mutating func number() throws -> Any {
            let start = index
            func digits() -> Int {
                let from = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                return index - from
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count else { throw failure("truncated number") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                guard digits() > 0 else { throw failure("not a value") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw failure("no digits after '.'") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard digits() > 0 else { throw failure("no exponent digits") }
            }
            return Double(String(decoding: bytes[start..<index], as: UTF8.self)) ?? 0
        }

        mutating func string() throws -> String {
            try expect(UInt8(ascii: "\""))
            var out: [UInt8] = []
            while true {
                guard index < bytes.count else { throw failure("unterminated string") }
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw failure("truncated escape") }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        guard index + 4 <= bytes.count,
                            let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                        else { throw failure("bad \\u escape") }
                        index += 4
                        out.append(
                            contentsOf: Array(String(UnicodeScalar(value).map(Character.init) ?? "\u{FFFD}").utf8))
                    default:
                        throw failure("unknown escape")
                    }
                default:
                    guard byte >= 0x20 else { throw failure("raw control character in a string") }
                    out.append(byte)
                }
            }
        }
    }
}
