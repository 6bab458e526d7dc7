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

        /// "a binary (bplist00)", "an XML": as messages name it before "property list".
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
        if let found = text.withContiguousStorageIfAvailable({ recognise(buffer: $0, others: others) }) {
            return found
        }
        return Array(text).withUnsafeBufferPointer { recognise(buffer: $0, others: others) }
    }

    /// `recognise` on contiguous bytes, decoded on the stack: this is asked of every line of a
    /// batch (of JWS, mostly), so it allocates nothing.
    private static func recognise(buffer text: UnsafeBufferPointer<UInt8>, others: Bool) -> Recognition? {
        var start = 0
        while start < text.count, LegacyReceipt.isWhitespace(text[start]) { start += 1 }
        guard start < text.count, isFirstCharacter(text[start]) else { return nil }
        let rest = UnsafeBufferPointer(rebasing: text[start...])
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: window / 4 * 3) { buffer in
            // Most text (a JWS's `{"alg":`) is told apart in its first 16 characters.
            let short = LegacyReceipt.decodeBase64Start(rest, characters: 16, into: buffer).written
            switch decide(UnsafeBufferPointer(rebasing: buffer[..<short]), complete: false, others: others) {
            case .found(let recognition): return recognition
            case .notOne: return nil
            case .needMore:
                guard short == 12 else { return nil }
                let long = LegacyReceipt.decodeBase64Start(rest, characters: window, into: buffer).written
                let decided = decide(UnsafeBufferPointer(rebasing: buffer[..<long]), complete: true, others: others)
                if case .found(let recognition) = decided { return recognition }
                return nil
            }
        }
    }

    /// The format of decoded bytes that are a property list but not OpenStep text, or nil:
    /// `bplist` first, or an XML declaration, `<plist` or its DOCTYPE (after a byte order mark
    /// and whitespace) in the first `window / 4 * 3` bytes.
    static func otherFormat(_ bytes: some Collection<UInt8>) -> Format? {
        let prefix = bytes.prefix(window / 4 * 3)
        if prefix.starts(with: Markers.binary) { return .binary }
        var text = prefix[...]
        if text.starts(with: Markers.byteOrderMark) { text = text.dropFirst(Markers.byteOrderMark.count) }
        text = text.drop(while: LegacyReceipt.isWhitespace)
        guard text.first == UInt8(ascii: "<") else { return nil }
        if text.starts(with: Markers.plist) || text.starts(with: Markers.doctype) { return .xml }
        if text.starts(with: Markers.declaration), contains(text, Markers.plist) || contains(text, Markers.doctype) {
            return .xml
        }
        return nil
    }

    /// What `otherFormat` looks for.
    private enum Markers {
        static let binary = Array("bplist".utf8)
        static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        static let plist = Array("<plist".utf8)
        static let doctype = Array("<!DOCTYPE plist".utf8)
        static let declaration = Array("<?xml".utf8)
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

    /// Whether `byte` is the first character of base64 that decodes to `{`, `b` (bplist), `<`,
    /// whitespace or a UTF-8 byte order mark.
    private static func isFirstCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "e"), UInt8(ascii: "Y"), UInt8(ascii: "P"), UInt8(ascii: "I"), UInt8(ascii: "C"),
            UInt8(ascii: "D"), UInt8(ascii: "7"):
            true
        default: false
        }
    }

    /// What decoded bytes tell, so far.
    private enum Decision {
        case found(Recognition)
        case notOne
        /// They end before it is told.
        case needMore
    }

    /// What `decoded` opens as; `complete` when no more bytes will come.
    private static func decide(_ decoded: UnsafeBufferPointer<UInt8>, complete: Bool, others: Bool) -> Decision {
        var lead = 0
        if decoded.starts(with: Markers.byteOrderMark) { lead = Markers.byteOrderMark.count }
        while lead < decoded.count, LegacyReceipt.isWhitespace(decoded[lead]) { lead += 1 }
        guard lead < decoded.count else { return complete ? .notOne : .needMore }
        switch decoded[lead] {
        case UInt8(ascii: "{"):
            switch opensDictionary(decoded) {
            case true?: return .found(.openStep)
            case false?: return .notOne
            case nil: return complete ? .notOne : .needMore
            }
        case UInt8(ascii: "b"), UInt8(ascii: "<"):
            guard others else { return .notOne }
            if let format = otherFormat(decoded) { return .found(.other(format)) }
            // An XML declaration whose `<plist` or DOCTYPE is further on.
            return !complete && decoded[lead] == UInt8(ascii: "<") ? .needMore : .notOne
        default:
            return .notOne
        }
    }

    /// Whether `bytes` open an OpenStep dictionary: whitespace, `{`, whitespace, a key (quoted
    /// printable ASCII, or unquoted), whitespace and `=`. Nil when they end before that is told.
    private static func opensDictionary(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
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

    private static func contains(_ text: some Collection<UInt8>, _ needle: [UInt8]) -> Bool {
        var rest = text[...]
        while rest.count >= needle.count {
            if rest.starts(with: needle) { return true }
            rest = rest.dropFirst()
        }
        return false
    }
}
