/// The writer of `OrderedJSON`: compact or pretty (two-space indentation), one escaping rule
/// for every string, raw JSON texts re-indented without touching a token.
extension OrderedJSON {
    /// Serializes: `pretty` uses two-space indentation, otherwise no insignificant whitespace.
    package func serialized(pretty: Bool = false, level: Int = 0) -> String {
        var out: [UInt8] = []
        write(into: &out, pretty: pretty, level: level)
        return String(decoding: out, as: UTF8.self)
    }

    /// The compact text (no insignificant whitespace) as UTF-8: the bytes a payload is signed as.
    package var bytes: [UInt8] {
        var out: [UInt8] = []
        write(into: &out, pretty: false, level: 0)
        return out
    }

    /// Appends the text; `pretty` as in `serialized`.
    package func write(into out: inout [UInt8], pretty: Bool = false, level: Int = 0) {
        write(to: &out, pretty: pretty, level: level)
    }

    /// Writes the text into `out`; `pretty` as in `serialized`.
    func write<Sink: ByteSink>(to out: inout Sink, pretty: Bool, level: Int) {
        switch self {
        case .object(let object):
            let members = object.members
            guard !members.isEmpty else { return out.write("{}") }
            out.write(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out.write(UInt8(ascii: ",")) }
                Self.newline(&out, pretty: pretty, level: level + 1)
                Self.writeString(key, to: &out)
                out.write(UInt8(ascii: ":"))
                if pretty { out.write(UInt8(ascii: " ")) }
                value.write(to: &out, pretty: pretty, level: level + 1)
            }
            Self.newline(&out, pretty: pretty, level: level)
            out.write(UInt8(ascii: "}"))
        case .array(let values):
            guard !values.isEmpty else { return out.write("[]") }
            out.write(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.write(UInt8(ascii: ",")) }
                Self.newline(&out, pretty: pretty, level: level + 1)
                value.write(to: &out, pretty: pretty, level: level + 1)
            }
            Self.newline(&out, pretty: pretty, level: level)
            out.write(UInt8(ascii: "]"))
        case .string(let string):
            Self.writeString(string, to: &out)
        case .bool(let value):
            out.write(value ? "true" : "false")
        case .integer(let value):
            Self.writeInteger(value, into: &out)
        case .double(let value):
            out.write(utf8: value.isFinite ? String(value) : "null")
        case .null:
            out.write("null")
        case .raw(let bytes):
            Self.reformat(bytes, to: &out, pretty: pretty, level: level)
        case .preformatted(let text):
            out.write(utf8: text)
        }
    }

    /// The decimal digits of `value`, as `String(value)` writes them, without making a String.
    static func writeInteger<Sink: ByteSink>(_ value: Int64, into out: inout Sink) {
        if value < 0 { out.write(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in  // room for 20 digits
            var end = digits.count
            repeat {
                end -= 1
                digits[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.write(UnsafeBufferPointer(rebasing: digits[end...]))
        }
    }

    static func newline<Sink: ByteSink>(_ out: inout Sink, pretty: Bool, level: Int) {
        guard pretty else { return }
        // A line break and the indentation, copied from one line of spaces (deeper levels,
        // which no output has, a line's worth at a time).
        var indentation = level * 2
        out.write(UInt8(ascii: "\n"))
        while indentation > 0 {
            let run = min(indentation, Self.indentationLine.utf8CodeUnitCount)
            out.write(UnsafeBufferPointer(start: Self.indentationLine.utf8Start, count: run))
            indentation -= run
        }
    }

    /// The spaces indentation is copied from (64).
    private static let indentationLine: StaticString =
        "                                                                "

    /// Writes a JSON string (RFC 8259 §7): quotes and backslashes escaped, `\n`, `\r`, `\t`,
    /// other control characters as `\u00XX`; everything else, DEL and non-ASCII included, as is.
    package static func writeString(_ string: String, into out: inout [UInt8]) {
        writeString(string, to: &out)
    }

    /// `writeString` into any sink.
    static func writeString<Sink: ByteSink>(_ string: String, to out: inout Sink) {
        out.write(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            // Most strings need no escaping: a string with no quote, backslash or control
            // character (eight bytes at a time) is copied whole.
            if !ByteScan.contains(
                UnsafeRawBufferPointer(bytes), below: 0x20, orEither: UInt8(ascii: "\""), UInt8(ascii: "\\"))
            {
                out.write(bytes)
                return
            }
            // Else runs of plain bytes are copied whole.
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.write(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                switch byte {
                case UInt8(ascii: "\""): out.write("\\\"")
                case UInt8(ascii: "\\"): out.write("\\\\")
                default: appendEscaped(byte, into: &out)
                }
                start = index + 1
            }
            out.write(UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        out.write(UInt8(ascii: "\""))
    }

    /// A control character as JSON writes it inside a string (`\n`, `\u001b`).
    private static func appendEscaped<Sink: ByteSink>(_ byte: UInt8, into out: inout Sink) {
        switch byte {
        case 0x0a: out.write("\\n")
        case 0x0d: out.write("\\r")
        case 0x09: out.write("\\t")
        default:
            let hex: StaticString = "0123456789abcdef"
            out.write("\\u00")
            out.write(hex.utf8Start[Int(byte >> 4)])
            out.write(hex.utf8Start[Int(byte & 0xf)])
        }
    }

    /// Re-indents a valid JSON text without touching any token: strings and numbers
    /// are copied byte for byte; only whitespace between tokens changes.
    static func reformat<Sink: ByteSink>(_ text: [UInt8], to out: inout Sink, pretty: Bool, level: Int) {
        text.withUnsafeBufferPointer { reformat($0, to: &out, pretty: pretty, level: level) }
    }

    private static func reformat<Sink: ByteSink>(
        _ bytes: UnsafeBufferPointer<UInt8>, to out: inout Sink, pretty: Bool, level: Int
    ) {
        var depth = level
        var inString = false
        var escaped = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inString {
                if escaped {
                    out.write(byte)
                    escaped = false
                } else if byte < 0x20 {
                    // A raw control character (Foundation accepts them in strings; JSON does not):
                    // escaped, so the output is JSON and one line in JSON Lines, the value unchanged.
                    appendEscaped(byte, into: &out)
                } else {
                    out.write(byte)
                    if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    } else {
                        // Copy the rest of a plain string run at once (base64 certificates are kilobytes).
                        var end = index
                        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"),
                            bytes[end] >= 0x20
                        {
                            end += 1
                        }
                        out.write(UnsafeBufferPointer(rebasing: bytes[index..<end]))
                        index = end
                    }
                }
                continue
            }
            switch byte {
            case 0x20, 0x0a, 0x0d, 0x09:
                continue
            case UInt8(ascii: "\""):
                inString = true
                out.write(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.write(byte)
                // An empty container stays on one line.
                var next = index
                while next < bytes.count,
                    bytes[next] == 0x20 || bytes[next] == 0x0a || bytes[next] == 0x0d
                        || bytes[next] == 0x09
                {
                    next += 1
                }
                if next < bytes.count,
                    bytes[next] == (byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                {
                    out.write(bytes[next])
                    index = next + 1
                } else {
                    depth += 1
                    newline(&out, pretty: pretty, level: depth)
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline(&out, pretty: pretty, level: depth)
                out.write(byte)
            case UInt8(ascii: ","):
                out.write(byte)
                newline(&out, pretty: pretty, level: depth)
            case UInt8(ascii: ":"):
                out.write(byte)
                if pretty { out.write(UInt8(ascii: " ")) }
            default:
                out.write(byte)
            }
        }
    }
}
