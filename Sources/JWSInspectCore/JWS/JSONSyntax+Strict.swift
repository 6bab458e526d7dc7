/// `JSONSyntax` on whole texts: the strict check of a header or payload, and the escaped copy
/// Foundation decodes.
extension JSONSyntax {
    /// Nil when `bytes` are one complete JSON text (whitespace around it allowed), else why
    /// not, in one line naming the byte offset.
    static func strictProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        strictCheck(bytes).problem
    }

    /// `strictProblem`, and whether strings hold raw control characters.
    static func strictCheck(_ bytes: UnsafeBufferPointer<UInt8>) -> (problem: String?, rawControlCharacters: Bool) {
        var syntax = JSONSyntax(mode: .strict)
        syntax.feed(bytes)
        if syntax.state == .number, syntax.outcome == .open, syntax.numberCanEnd, let base = bytes.baseAddress,
            let problem = syntax.rangeProblem(base, end: bytes.count)
        {
            // A number at the very end (a payload that is only a number), checked where its bytes are.
            syntax.fail(problem, atAbsolute: syntax.numberStart)
        }
        return (syntax.finish(), syntax.rawControlCharacters)
    }

    /// A copy of valid JSON text with every raw control character inside a string written as
    /// its `\u00XX` escape: the same values, in a form Foundation decodes.
    static func escapingControlCharacters(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 64)
        var inString = false
        var escaped = false
        let hex = Array("0123456789abcdef".utf8)
        for byte in bytes {
            if inString, !escaped, byte < 0x20 {
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                continue
            }
            out.append(byte)
            if escaped {
                escaped = false
            } else if inString, byte == 0x5C {
                escaped = true
            } else if byte == 0x22 {
                inString.toggle()
            }
        }
        return out
    }
}
