/// Makes untrusted text safe to print on a terminal.
///
/// Payloads, headers and certificate names come from the token, so a hostile one
/// could carry escape sequences that recolour, move the cursor or retitle the
/// terminal. Control characters (C0, DEL, C1) are shown as `\u{…}` escapes instead.
enum TerminalText {
    static func safe(_ text: String) -> String {
        guard mayHoldControls(text), text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// False when the UTF-8 bytes alone prove that no scalar is a control: C0 and DEL are
    /// bytes below 0x20 and 0x7F, C1 (U+0080 to U+009F) starts with 0xC2. Every table cell
    /// asks, and scalars one by one cost more than the rest of a cell.
    private static func mayHoldControls(_ text: String) -> Bool {
        func suspect(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F || byte == 0xC2 }
        let answer = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            let raw = UnsafeRawBufferPointer(bytes)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let high: UInt64 = 0x8080_8080_8080_8080
            var offset = 0
            // Eight ASCII bytes at a time: any below 0x20, any equal to 0x7F (exact for bytes
            // under 0x80, the "has less" and "has zero" word tests); others byte by byte.
            while offset + 8 <= raw.count {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                if word & high != 0 {
                    if raw[offset..<offset + 8].contains(where: suspect) { return true }
                } else {
                    let below = (word &- ones &* 0x20) & ~word & high
                    let del = word ^ (ones &* 0x7F)
                    if below | ((del &- ones) & ~del & high) != 0 { return true }
                }
                offset += 8
            }
            return raw[offset...].contains(where: suspect)
        }
        return answer ?? true
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value)
    }
}
