/// Makes untrusted text safe to print on a terminal.
///
/// Payloads, headers and certificate names come from the token, so a hostile one
/// could carry escape sequences that recolour, move the cursor or retitle the
/// terminal. Control characters (C0, DEL, C1) are shown as `\u{…}` escapes instead.
enum TerminalText {
    static func safe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
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

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value)
    }
}
