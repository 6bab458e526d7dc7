/// The writer of `OrderedJSON`: compact or pretty (two-space indentation), one escaping rule
/// for every string, raw JSON texts re-indented without touching a token.
extension OrderedJSON {
    /// Serializes: `pretty` uses two-space indentation, otherwise no insignificant whitespace.
    public func serialized(pretty: Bool = false, level: Int = 0) -> String {
        var out: [UInt8] = []
        write(into: &out, pretty: pretty, level: level)
        return String(decoding: out, as: UTF8.self)
    }

    /// The compact text (no insignificant whitespace) as UTF-8: the bytes a payload is signed as.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        write(into: &out, pretty: false, level: 0)
        return out
    }

    /// Appends the text; `pretty` as in `serialized`.
    public func write(into out: inout [UInt8], pretty: Bool = false, level: Int = 0) {
        switch self {
        case .object(let object):
            let members = object.members
            guard !members.isEmpty else { return out.append(contentsOf: "{}".utf8) }
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(&out, pretty: pretty, level: level + 1)
                Self.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(UInt8(ascii: " ")) }
                value.write(into: &out, pretty: pretty, level: level + 1)
            }
            Self.newline(&out, pretty: pretty, level: level)
            out.append(UInt8(ascii: "}"))
        case .array(let values):
            guard !values.isEmpty else { return out.append(contentsOf: "[]".utf8) }
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(&out, pretty: pretty, level: level + 1)
                value.write(into: &out, pretty: pretty, level: level + 1)
            }
            Self.newline(&out, pretty: pretty, level: level)
            out.append(UInt8(ascii: "]"))
        case .string(let string):
            Self.writeString(string, into: &out)
        case .bool(let value):
            out.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value):
            Self.writeInteger(value, into: &out)
        case .double(let value):
            out.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
        case .null:
            out.append(contentsOf: "null".utf8)
        case .raw(let bytes):
            Self.reformat(bytes, into: &out, pretty: pretty, level: level)
        case .preformatted(let text):
            out.append(contentsOf: text.utf8)
        }
    }

    /// The decimal digits of `value`, as `String(value)` writes them, without making a String.
    static func writeInteger(_ value: Int64, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var end = buffer.count
            repeat {
                end -= 1
                buffer[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[end...]))
        }
    }

    private static func newline(_ out: inout [UInt8], pretty: Bool, level: Int) {
        guard pretty else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 2))
    }

    /// Writes a JSON string (RFC 8259 §7): quotes and backslashes escaped, `\n`, `\r`, `\t`,
    /// other control characters as `\u00XX`; everything else, DEL and non-ASCII included, as is.
    public static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            // Most strings need no escaping: a string with no quote, backslash or control
            // character (eight bytes at a time) is copied whole.
            if !ByteScan.contains(
                UnsafeRawBufferPointer(bytes), below: 0x20, orEither: UInt8(ascii: "\""), UInt8(ascii: "\\"))
            {
                out.append(contentsOf: bytes)
                return
            }
            // Else runs of plain bytes are copied whole.
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
                default: appendEscaped(byte, into: &out)
                }
                start = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A control character as JSON writes it inside a string (`\n`, `\u001b`).
    private static func appendEscaped(_ byte: UInt8, into out: inout [UInt8]) {
        switch byte {
        case 0x0a: out.append(contentsOf: "\\n".utf8)
        case 0x0d: out.append(contentsOf: "\\r".utf8)
        case 0x09: out.append(contentsOf: "\\t".utf8)
        default:
            let hex = Array("0123456789abcdef".utf8)
            out.append(contentsOf: "\\u00".utf8)
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xf)])
        }
    }

    /// Re-indents a valid JSON text without touching any token: strings and numbers
    /// are copied byte for byte; only whitespace between tokens changes.
    static func reformat(_ bytes: [UInt8], into out: inout [UInt8], pretty: Bool, level: Int) {
        var depth = level
        var inString = false
        var escaped = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inString {
                if escaped {
                    out.append(byte)
                    escaped = false
                } else if byte < 0x20 {
                    // A raw control character (Foundation accepts them in strings; JSON does not):
                    // escaped, so the output is JSON and one line in JSON Lines, the value unchanged.
                    appendEscaped(byte, into: &out)
                } else {
                    out.append(byte)
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
                        out.append(contentsOf: bytes[index..<end])
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
                out.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(byte)
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
                    out.append(bytes[next])
                    index = next + 1
                } else {
                    depth += 1
                    newline(&out, pretty: pretty, level: depth)
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline(&out, pretty: pretty, level: depth)
                out.append(byte)
            case UInt8(ascii: ","):
                out.append(byte)
                newline(&out, pretty: pretty, level: depth)
            case UInt8(ascii: ":"):
                out.append(byte)
                if pretty { out.append(UInt8(ascii: " ")) }
            default:
                out.append(byte)
            }
        }
    }
}
