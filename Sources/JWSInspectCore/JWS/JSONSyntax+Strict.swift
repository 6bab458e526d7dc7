/// `JSONSyntax` on whole texts: the strict check of a header or payload, the member check of
/// a document Foundation decoded, and the escaped copy Foundation decodes.
extension JSONSyntax {
    /// Nil when `bytes` are one complete JSON text (whitespace around it allowed) and no
    /// object in it names a member twice, else why not, in one line naming the byte offset.
    static func strictProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        strictCheck(bytes).problem
    }

    /// `strictProblem`, the member named twice when that is the problem, and whether strings
    /// hold raw control characters.
    static func strictCheck(_ bytes: UnsafeBufferPointer<UInt8>)
        -> (problem: String?, duplicate: DuplicateMember?, rawControlCharacters: Bool)
    {
        var syntax = JSONSyntax(mode: .strict)
        syntax.feed(bytes)
        if syntax.state == .number, syntax.outcome == .open, syntax.numberCanEnd, let base = bytes.baseAddress,
            let problem = syntax.rangeProblem(base, end: bytes.count)
        {
            // A number at the very end (a payload that is only a number), checked where its bytes are.
            syntax.fail(problem, atAbsolute: syntax.numberStart)
        }
        return (syntax.finish(), syntax.duplicate, syntax.rawControlCharacters)
    }

    /// The first member named twice in one object of `bytes`, a JSON text Foundation decoded
    /// (read as leniently as Foundation reads, in `.record` mode); or why the text could not
    /// be read to its end (Foundation takes UTF-16 and UTF-32 too): the caller refuses it
    /// then, rather than trust a reading it could not check.
    static func memberCheck(_ bytes: UnsafeBufferPointer<UInt8>) -> (
        duplicate: DuplicateMember?, problem: String?, refusedNames: String?
    ) {
        var syntax = JSONSyntax(mode: .record, members: true)
        syntax.feed(bytes)
        if let duplicate = syntax.duplicate { return (duplicate, nil, nil) }
        let problem = syntax.finish()
        return (nil, problem, syntax.refusedForNames ? problem : nil)
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
