/// Recognises a legacy App Store receipt (the PKCS#7 `appStoreReceipt` of
/// `verifyReceipt`) wherever inputs are scanned: a raw file, base64 text, a JSON string.
///
/// A receipt is a CMS SignedData: DER or BER starting `30 80` (indefinite length, as
/// StoreKit Testing in Xcode writes it) or `30 81`…`30 84` (definite length), then the
/// OID 1.2.840.113549.1.7.2. Apps send it base64-encoded, so its text starts `MIA` or
/// `MII`/`MIM`…, often wrapped at 64 or 76 columns.
package enum LegacyReceipt {
    /// The DER of OID 1.2.840.113549.1.7.2 (pkcs7-signedData).
    static let signedDataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]

    /// Base64 characters decoded: 32 make 24 bytes, more than the longest SignedData start
    /// (6 bytes of tag and length, 11 of OID).
    static let base64Characters = 32

    /// Bytes looked at after leading whitespace: room for the base64 characters wrapped
    /// at any width and indented.
    static let window = 256

    /// Whether `bytes` start like a PKCS#7 SignedData, raw (DER or BER) or in standard
    /// base64 (wrapped or not, padded or not).
    ///
    /// Linear in the leading whitespace, then bounded: only the first `window` bytes after
    /// it are read, and of base64 text only the first `base64Characters` characters decoded.
    package static func looksLike(_ bytes: some Collection<UInt8>) -> Bool {
        guard let start = bytes.firstIndex(where: { !isWhitespace($0) }) else { return false }
        let prefix = Array(bytes[start...].prefix(window))
        return startsSignedData(prefix) || startsSignedData(decodeBase64Start(prefix))
    }

    /// How many base64 characters (padding not counted) the receipt that `text` starts takes,
    /// from its outer SEQUENCE's definite length in its first bytes (`30 82 19 DF`: 6,627
    /// bytes, 8,836 characters); nil for BER's indefinite length (`MIA`), which only its
    /// end-of-contents octets close, and for text that does not start a receipt.
    static func base64Length(_ text: some Collection<UInt8>) -> Int? {
        guard let start = text.firstIndex(where: { !isWhitespace($0) }) else { return nil }
        let bytes = decodeBase64Start(Array(text[start...].prefix(window)))
        guard startsSignedData(bytes), bytes[1] != 0x80 else { return nil }
        let lengthBytes = Int(bytes[1] & 0x7F)
        let length = bytes[2..<(2 + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
        return ((2 + lengthBytes + length) * 4 + 2) / 3
    }

    /// Whether a line of base64 text starts something other than the receipt it follows: a
    /// receipt of its own (`MII…`, `MIA…`), or the start of a JSON object in text (a JWS header,
    /// `eyJhbGciOi…`, wrapped by `fold`: standard base64 characters only, like a receipt's). Its
    /// first `base64Characters` characters are decoded; a receipt's own lines decode to DER,
    /// never to a SignedData start at a line's start, nor to `{` and 23 printable bytes.
    static func startsAnotherItem(_ line: some Collection<UInt8>) -> Bool {
        guard let start = line.firstIndex(where: { !isWhitespace($0) }) else { return false }
        let bytes = decodeBase64Start(Array(line[start...].prefix(window)))
        if startsSignedData(bytes) { return true }
        let text = bytes.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        return bytes.count == (base64Characters / 4 * 3) && text.first == UInt8(ascii: "{")
            && text.allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    }

    /// Whether `bytes` start with a SEQUENCE of indefinite or long-form length holding the
    /// signedData OID first.
    static func startsSignedData(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2, bytes[0] == 0x30 else { return false }
        let header: Int
        switch bytes[1] {
        case 0x80: header = 2
        case 0x81...0x84: header = 2 + Int(bytes[1] & 0x7F)
        default: return false
        }
        return bytes.count >= header + signedDataOID.count
            && bytes[header..<(header + signedDataOID.count)].elementsEqual(signedDataOID)
    }

    /// The bytes encoded by the first `base64Characters` characters of standard base64 in
    /// `text`, whitespace skipped; empty when a character before them is not base64. Decoding
    /// stops at padding or at the end of `text`.
    static func decodeBase64Start(_ text: [UInt8]) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: base64Characters / 4 * 3) { buffer in
            let (written, stoppedAtOther) = decodeBase64Start(text, characters: base64Characters, into: buffer)
            return stoppedAtOther ? [] : Array(buffer[..<written])
        }
    }

    /// Decodes the first `characters` characters of standard base64 in `text` into `out`,
    /// whitespace skipped, allocating nothing; decoding stops at padding, at a character that is
    /// not base64, or at the end of `text`.
    ///
    /// - Returns: how many bytes it wrote (at most `characters / 4 * 3`), and whether it stopped
    ///   at a character that is neither base64 nor padding.
    static func decodeBase64Start(
        _ text: some Collection<UInt8>, characters: Int, into out: UnsafeMutableBufferPointer<UInt8>
    ) -> (written: Int, stoppedAtOther: Bool) {
        var group: UInt32 = 0
        var inGroup = 0
        var taken = 0
        var written = 0
        var stoppedAtOther = false
        for byte in text {
            if isWhitespace(byte) { continue }
            guard let value = base64Value(byte) else {
                stoppedAtOther = byte != UInt8(ascii: "=")
                break
            }
            group = group << 6 | UInt32(value)
            inGroup += 1
            taken += 1
            if inGroup == 4 {
                out[written] = UInt8(truncatingIfNeeded: group >> 16)
                out[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                out[written + 2] = UInt8(truncatingIfNeeded: group)
                written += 3
                group = 0
                inGroup = 0
            }
            if taken == characters { break }
        }
        // n characters of a last group make n - 1 bytes (a lone last character none).
        if inGroup >= 2 {
            out[written] = UInt8(truncatingIfNeeded: group >> (6 * inGroup - 8))
            written += 1
        }
        if inGroup == 3 {
            out[written] = UInt8(truncatingIfNeeded: group >> 2)
            written += 1
        }
        return (written, stoppedAtOther)
    }

    /// What a line of base64 text holds, read in one pass (`ReceiptBase64.classes`).
    struct Census {
        /// Characters of the standard alphabet (padding and whitespace not counted).
        var characters = 0
        /// Whether it holds padding (`=`).
        var padded = false
        /// Whether every byte is base64 text (`isBase64Text`).
        var onlyBase64Text = true
        /// Whether a byte is not whitespace as `InputScanner.isWhitespace` has it (a vertical tab
        /// or a form feed is text there, whitespace in base64).
        var hasText = false

        init(_ line: UnsafeBufferPointer<UInt8>) {
            // Per byte, without a branch: its flags added (the alphabet bit counts) and or-ed.
            var counted = 0
            var seen: UInt8 = 0
            Self.flags.withUnsafeBufferPointer { flags in
                for byte in line {
                    let flag = flags[Int(byte)]
                    counted &+= Int(flag & Self.alphabet)
                    seen |= flag
                }
            }
            characters = counted
            padded = seen & Self.padding != 0
            onlyBase64Text = seen & Self.other == 0
            hasText = seen & (Self.alphabet | Self.padding | Self.other | Self.textSpace) != 0
        }

        /// Each byte's flags: in the standard alphabet, padding, neither nor whitespace, or a
        /// vertical tab or form feed (whitespace in base64, text to `InputScanner.isWhitespace`).
        private static let alphabet: UInt8 = 1
        private static let padding: UInt8 = 2
        private static let other: UInt8 = 4
        private static let textSpace: UInt8 = 8
        private static let flags: [UInt8] = (0...255).map { byte in
            let value = ReceiptBase64.classes[byte]
            if value < ReceiptBase64.padding { return alphabet }
            if value == ReceiptBase64.padding { return padding }
            if value == ReceiptBase64.other { return other }
            return byte == 0x0B || byte == 0x0C ? textSpace : 0
        }

        init(_ line: [UInt8]) {
            self = line.withUnsafeBufferPointer { Census($0) }
        }
    }

    /// A standard base64 character's value (RFC 4648 §4), nil for any other byte.
    static func base64Value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }

    /// Whether `byte` may appear in a receipt's base64 text: the standard alphabet, padding and
    /// whitespace.
    static func isBase64Text(_ byte: UInt8) -> Bool {
        base64Value(byte) != nil || byte == UInt8(ascii: "=") || isWhitespace(byte)
    }

    /// Space, tab, line feed, vertical tab, form feed and carriage return.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }
}
