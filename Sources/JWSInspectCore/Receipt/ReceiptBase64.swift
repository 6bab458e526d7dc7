internal import FoundationEssentials

/// Receipts as apps send them: standard base64 (RFC 4648 §4), wrapped or not, padded or not.
public enum ReceiptBase64 {
    /// Why text is not a base64 receipt.
    public enum DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The decoded bytes would exceed `CMSSignedData.maximumSize`.
        case tooLarge(limit: Int)
        /// A character that is neither base64 nor whitespace, or a wrong length or padding.
        case notBase64

        public var description: String {
            switch self {
            case .tooLarge(let limit): "not a receipt: the base64 text decodes to more than \(limit) bytes"
            case .notBase64: "not a receipt: not standard base64 text"
            }
        }
    }

    /// The bytes of base64 `text`, ASCII whitespace (line breaks of any width) ignored and
    /// missing padding restored.
    ///
    /// - Throws: `.tooLarge` before decoding when the text holds more characters than
    ///   `CMSSignedData.maximumSize` bytes need; `.notBase64` for anything else that is not base64.
    public static func decode(_ text: some Collection<UInt8>) throws(DecodingError) -> [UInt8] {
        let limit = CMSSignedData.maximumSize
        let maximumCharacters = (limit + 2) / 3 * 4
        var compact: [UInt8] = []
        for byte in text where !(byte == 0x20 || (0x09...0x0D).contains(byte)) {
            guard compact.count < maximumCharacters else { throw .tooLarge(limit: limit) }
            compact.append(byte)
        }
        guard !compact.isEmpty, compact.count % 4 != 1 else { throw .notBase64 }
        while compact.count % 4 != 0 { compact.append(UInt8(ascii: "=")) }
        guard let data = Data(base64Encoded: Data(compact)) else { throw .notBase64 }
        return Array(data)
    }
}
