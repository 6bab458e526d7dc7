internal import JWSInspectCore

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
        let answer = text.utf8.withContiguousStorageIfAvailable { bytes in
            ByteScan.contains(UnsafeRawBufferPointer(bytes), below: 0x20, orEither: 0x7F, 0xC2)
        }
        return answer ?? true
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value)
    }
}
