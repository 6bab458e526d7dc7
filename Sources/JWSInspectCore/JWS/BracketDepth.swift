/// Tracks `{`/`[` nesting across lines, outside strings.
struct BracketDepth {
    private var depth = 0
    private var inString = false
    private var escaped = false
    private(set) var broken = false
    /// The deepest nesting seen so far.
    private(set) var deepest = 0

    var isOpen: Bool { depth > 0 && !broken }

    mutating func feed(_ bytes: [UInt8]) {
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth < 0 { broken = true }
            default: break
            }
        }
    }
}
