/// Recognises a StoreKit 1 transaction receipt (what `SKPaymentTransaction.transactionReceipt`
/// gave) wherever inputs are scanned: an argument, a file, standard input, a line of a batch, a
/// JSON string. It is standard base64 (padded or not, wrapped or not) of an OpenStep property
/// list, `{` (whitespace before it allowed) and a first member `"key" =` (`TransactionReceiptEnvelope`
/// reads the rest: its `purchase-info`).
///
/// A property list in base64 in another format (binary, `bplist00`; XML, `<?xml … <plist`) is
/// recognised too, where a whole input or line is one, to be refused by name rather than as
/// "no JWS found".
package enum TransactionReceiptText {
    /// What base64 text opens as.
    package enum Recognition: Sendable, Equatable {
        /// An OpenStep dictionary: a transaction receipt's shape.
        case openStep
        /// A property list in another format.
        case other(Format)
    }

    /// A property list format other than OpenStep text.
    package enum Format: Sendable, Equatable {
        case binary
        case xml

        /// "a binary", "an XML": as messages name it before "property list".
        var article: String {
            switch self {
            case .binary: "a binary (bplist00)"
            case .xml: "an XML"
            }
        }
    }

    /// Base64 characters decoded to recognise text at most: 128 make 96 bytes, room for an XML
    /// declaration and its `<!DOCTYPE plist`, or `{`, a key of about 80 bytes and its `=`.
    static let window = 128

    /// What `text` opens as, or nil when it is not base64 of a property list. Bounded: the
    /// leading whitespace, then at most `window` characters (whitespace between them skipped).
    ///
    /// - Parameter others: whether a property list in another format is recognised too (a whole
    ///   input or line), or only an OpenStep one (inside a JSON document or a line of text).
    package static func recognise(_ text: some Collection<UInt8>, others: Bool = true) -> Recognition? {
        guard let start = text.firstIndex(where: { !LegacyReceipt.isWhitespace($0) }),
            firstCharacters.contains(text[start])
        else { return nil }
        // Most text (a JWS's `{"alg":`) is told apart in its first 16 characters.
        let short = decodeBase64Start(text[start...], characters: 16)
        switch decide(short, complete: false, others: others) {
        case .found(let recognition): return recognition
        case .notOne: return nil
        case .needMore:
            guard short.count == 12 else { return nil }
            let long = decodeBase64Start(text[start...], characters: window)
            if case .found(let recognition) = decide(long, complete: true, others: others) { return recognition }
            return nil
        }
    }

    /// The format of decoded bytes that are a property list but not OpenStep text, or nil.
    static func otherFormat(_ bytes: some Collection<UInt8>) -> Format? {
        let prefix = Array(bytes.prefix(window / 4 * 3))
        if prefix.starts(with: Array("bplist".utf8)) { return .binary }
        var text = prefix[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        text = text.drop(while: LegacyReceipt.isWhitespace)
        if text.starts(with: Array("<plist".utf8)) || text.starts(with: Array("<!DOCTYPE plist".utf8)) { return .xml }
        if text.starts(with: Array("<?xml".utf8)),
            contains(text, Array("<plist".utf8))
                || contains(text, Array("<!DOCTYPE plist".utf8))
        {
            return .xml
        }
        return nil
    }

    /// The item base64 `text` is (`recognise` found it): a transaction receipt's property list,
    /// decoded, or why it cannot be one (malformed).
    static func item(base64 text: some Collection<UInt8>, source: String) -> InputScanner.Item {
        let limit = TransactionReceiptEnvelope.maximumSize
        let fix = TransactionReceiptEnvelope.fix
        let decoded: [UInt8]
        do {
            decoded = try ReceiptBase64.decode(text, limit: limit)
        } catch .tooLarge {
            return .malformed(
                source: source,
                reason: "a StoreKit 1 transaction receipt's base64 decodes to more than "
                    + "\(InputStream.describe(size: limit)) (Apple's are about 4 KiB); \(fix)")
        } catch {
            return .malformed(
                source: source,
                reason: "looks like a StoreKit 1 transaction receipt (base64 of an OpenStep property list) "
                    + "but is not standard base64 text; \(fix)")
        }
        guard decoded.count <= limit else {
            return .malformed(
                source: source, reason: TransactionReceiptEnvelope.DecodingError.tooLarge(decoded.count).description)
        }
        if let format = otherFormat(decoded) {
            return .malformed(
                source: source,
                reason: "\(format.article) property list in base64, not a StoreKit 1 transaction receipt, whose "
                    + "property list is OpenStep text ({ \"purchase-info\" = \"…\"; }); \(fix)")
        }
        return .transactionReceipt(source: source, propertyList: decoded)
    }

    /// The first character of base64 that decodes to `{`, `b` (bplist), `<`, whitespace or a
    /// UTF-8 byte order mark.
    private static let firstCharacters: Set<UInt8> = Set("eYPICD7".utf8)

    /// What decoded bytes tell, so far.
    private enum Decision {
        case found(Recognition)
        case notOne
        /// They end before it is told.
        case needMore
    }

    /// What `decoded` opens as; `complete` when no more bytes will come.
    private static func decide(_ decoded: [UInt8], complete: Bool, others: Bool) -> Decision {
        if others {
            if let format = otherFormat(decoded) { return .found(.other(format)) }
            var text = decoded[...]
            if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
            // An XML declaration whose `<plist` or DOCTYPE is further on.
            if !complete, text.drop(while: LegacyReceipt.isWhitespace).first == UInt8(ascii: "<") { return .needMore }
        }
        switch opensDictionary(decoded) {
        case true?: return .found(.openStep)
        case false?: return .notOne
        case nil: return complete ? .notOne : .needMore
        }
    }

    /// Whether `bytes` open an OpenStep dictionary: whitespace, `{`, whitespace, a key (quoted
    /// printable ASCII, or unquoted), whitespace and `=`. Nil when they end before that is told.
    private static func opensDictionary(_ bytes: [UInt8]) -> Bool? {
        var index = 0
        func skipSpace() {
            while index < bytes.count, LegacyReceipt.isWhitespace(bytes[index]) { index += 1 }
        }
        skipSpace()
        guard index < bytes.count else { return nil }
        guard bytes[index] == UInt8(ascii: "{") else { return false }
        index += 1
        skipSpace()
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "\"") {
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                guard (0x20...0x7E).contains(bytes[index]), bytes[index] != UInt8(ascii: "\\") else { return false }
                index += 1
            }
            guard index < bytes.count else { return nil }
            index += 1
        } else {
            let start = index
            while index < bytes.count, isUnquoted(bytes[index]) { index += 1 }
            guard index > start else { return false }
        }
        skipSpace()
        guard index < bytes.count else { return nil }
        return bytes[index] == UInt8(ascii: "=")
    }

    private static func isUnquoted(_ byte: UInt8) -> Bool {
        LegacyReceipt.base64Value(byte) != nil || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
            || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    private static func contains(_ text: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard text.count >= needle.count else { return false }
        return (text.startIndex...(text.endIndex - needle.count)).contains {
            text[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    /// The bytes the first `characters` characters of standard base64 in `text` encode,
    /// whitespace skipped; decoding stops at padding, at a character that is not base64, or at
    /// the end of `text`.
    private static func decodeBase64Start(_ text: some Collection<UInt8>, characters: Int) -> [UInt8] {
        var values: [UInt8] = []
        values.reserveCapacity(characters)
        for byte in text {
            if LegacyReceipt.isWhitespace(byte) { continue }
            guard let value = LegacyReceipt.base64Value(byte) else { break }
            values.append(value)
            if values.count == characters { break }
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(characters / 4 * 3)
        var index = 0
        while index + 1 < values.count {
            // n characters of a group of four make n - 1 bytes (a lone last character none).
            let group = values[index..<min(index + 4, values.count)]
            let first = group[group.startIndex]
            let second = group[group.startIndex + 1]
            decoded.append(first << 2 | second >> 4)
            if group.count > 2 { decoded.append(second << 4 | group[group.startIndex + 2] >> 2) }
            if group.count > 3 { decoded.append(group[group.startIndex + 2] << 6 | group[group.startIndex + 3]) }
            index += 4
        }
        return decoded
    }
}
