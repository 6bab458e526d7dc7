/// `JSONSyntax`: numbers, surrogates, and the helpers of every step.
extension JSONSyntax {
    // MARK: Numbers

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, a byte at a time.
    enum NumberStep: UInt8 {
        case start, minus, zero, integer, point, fraction, exponent, exponentSign, exponentDigits
    }

    enum NumberResult { case inside, ended, malformed }

    /// Advances the number by `byte`.
    mutating func numberStep(_ byte: UInt8) -> NumberResult {
        let isDigit = byte &- 0x30 < 10
        let isExponent = byte | 0x20 == 0x65
        guard mode == .strict else {
            // Records: any run of number characters (Foundation decides later).
            return isDigit || byte == 0x2D || byte == 0x2B || byte == 0x2E || isExponent ? .inside : .ended
        }
        if isExponent { numberHasExponent = true }
        let next: NumberStep?
        switch NumberStep(rawValue: step) ?? .start {
        case .start: next = byte == 0x2D ? .minus : byte == 0x30 ? .zero : isDigit ? .integer : nil
        case .minus: next = byte == 0x30 ? .zero : isDigit ? .integer : nil
        case .zero:
            if isDigit { return .malformed }  // a leading zero
            next = byte == 0x2E ? .point : isExponent ? .exponent : nil
            if next == nil { return .ended }
        case .integer:
            next = isDigit ? .integer : byte == 0x2E ? .point : isExponent ? .exponent : nil
            if next == nil { return .ended }
        case .point: next = isDigit ? .fraction : nil
        case .fraction:
            next = isDigit ? .fraction : isExponent ? .exponent : nil
            if next == nil { return .ended }
        case .exponent: next = byte == 0x2B || byte == 0x2D ? .exponentSign : isDigit ? .exponentDigits : nil
        case .exponentSign: next = isDigit ? .exponentDigits : nil
        case .exponentDigits:
            guard isDigit else { return .ended }
            next = .exponentDigits
        }
        guard let next else { return .malformed }
        step = next.rawValue
        return .inside
    }

    /// Why the number that ends at `end` (it began at `numberStart`) is beyond what a double
    /// holds: Foundation refuses to decode it, overflowing to infinity or underflowing to zero.
    /// Only numbers with an exponent or many digits can be; the rest are not converted.
    func rangeProblem(_ base: UnsafePointer<UInt8>, end: Int) -> String? {
        guard numberHasExponent || end - numberStart > 15 else { return nil }
        let text = UnsafeBufferPointer(start: base + numberStart, count: end - numberStart)
        let value = Double(String(decoding: text, as: UTF8.self)) ?? .infinity
        let mantissa = text.prefix { $0 | 0x20 != 0x65 }
        let underflow = value == 0 && mantissa.contains { $0 &- 0x31 < 9 }
        guard !value.isFinite || underflow else { return nil }
        let shown =
            text.count > 40
            ? String(decoding: text.prefix(20), as: UTF8.self) + "…" : String(decoding: text, as: UTF8.self)
        return "the number \(shown) is beyond the range of a 64-bit float (RFC 8259 §6)"
    }

    /// A `\u` escape just ended: surrogates come in pairs, high then low (RFC 8259 §8.2).
    mutating func surrogateProblem() -> String? {
        let isHigh = (0xD800...0xDBFF).contains(codeUnit)
        let isLow = (0xDC00...0xDFFF).contains(codeUnit)
        if expectLowSurrogate {
            expectLowSurrogate = false
            return isLow ? nil : "an unpaired surrogate escape"
        }
        if isLow { return "an unpaired surrogate escape" }
        expectLowSurrogate = isHigh
        return nil
    }

    /// Whether the number read so far may end here.
    var numberCanEnd: Bool {
        switch NumberStep(rawValue: step) {
        case .zero, .integer, .fraction, .exponentDigits: true
        default: false
        }
    }

    // MARK: Helpers

    mutating func fail(_ reason: String, at index: Int) {
        fail(reason, atAbsolute: offset + index)
    }

    mutating func fail(_ reason: String, atAbsolute position: Int) {
        outcome = .broken
        problem = "\(reason) at byte \(position)"
    }

    mutating func advance(by count: Int) {
        offset += count
    }

    /// Whether any of eight bytes is `"`, `\` or below 0x20 (a word's bytes at once: a lane
    /// of `(x - 0x01…) & ~x & 0x80…` is set only where x is zero, for x below 0x80; bytes
    /// from 0x80 up are never flagged, and are none of the three).
    @inline(__always)
    static func mayEndString(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let control = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | control) & high != 0
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        if byte &- 0x30 < 10 { return byte &- 0x30 }
        if (byte | 0x20) &- 0x61 < 6 { return (byte | 0x20) &- 0x61 + 10 }
        return nil
    }

    /// A byte as messages show it: printable ASCII as is, anything else as \xNN.
    static func shown(_ byte: UInt8) -> String {
        if byte > 0x20 && byte < 0x7F { return String(UnicodeScalar(byte)) }
        let hex = Array("0123456789abcdef".utf8)
        return "\\x" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
    }
}
