internal import JWSInspectCore

/// Makes untrusted text safe to print on a terminal.
///
/// Payloads, headers and certificate names come from the token, so a hostile one
/// could carry escape sequences that recolour, move the cursor or retitle the
/// terminal. Control characters (C0, DEL, C1) are shown as `\u{…}` escapes instead, and so
/// are the characters that reorder or break what is shown without being controls: the bidi
/// marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A to U+202E,
/// U+2066 to U+2069: a payload's U+202E would show `gpj.exe` as `exe.jpg`) and the line and
/// paragraph separators U+2028 and U+2029.
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

    /// False when the UTF-8 bytes alone prove that no scalar is one to escape: C0 and DEL are
    /// bytes below 0x20 and 0x7F, C1 (U+0080 to U+009F) starts with 0xC2, U+061C with 0xD8,
    /// the others (U+2000 to U+2FFF) with 0xE2. Every table cell asks, and scalars one by one
    /// cost more than the rest of a cell.
    private static func mayHoldControls(_ text: String) -> Bool {
        let answer = text.utf8.withContiguousStorageIfAvailable { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            return ByteScan.contains(raw, below: 0x20, orEither: 0x7F, 0xC2)
                || ByteScan.contains(raw, below: 0, orEither: 0xD8, 0xE2)
        }
        return answer ?? true
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7f...0x9f: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
        default: false
        }
    }
}
