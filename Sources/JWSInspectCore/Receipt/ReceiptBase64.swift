/// Receipts as apps send them: standard base64 (RFC 4648 §4), wrapped or not, padded or not.
package enum ReceiptBase64 {
    /// Why text is not a base64 receipt.
    package enum DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The decoded bytes would exceed `CMSSignedData.maximumSize`.
        case tooLarge(limit: Int)
        /// A character that is neither base64 nor whitespace, or a wrong length or padding.
        case notBase64

        package var description: String {
            switch self {
            case .tooLarge(let limit): "not a receipt: the base64 text decodes to more than \(limit) bytes"
            case .notBase64: "not a receipt: not standard base64 text"
            }
        }
    }

    /// Each byte's class: its value (0–63) in the standard alphabet, `padding`, `whitespace`
    /// or `other`.
    static let classes: [UInt8] = {
        var table = [UInt8](repeating: other, count: 256)
        for (value, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(byte)] = UInt8(value)
        }
        table[Int(UInt8(ascii: "="))] = padding
        for byte in [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D] { table[byte] = whitespace }
        return table
    }()
    static let padding: UInt8 = 0x40
    static let whitespace: UInt8 = 0x41
    static let other: UInt8 = 0xFF

    /// The bytes of base64 `text`, ASCII whitespace (line breaks of any width) ignored and
    /// missing padding restored.
    ///
    /// The characters other than whitespace, padding restored, must be groups of four from the
    /// standard alphabet, the last of which may end in one or two `=`: padding anywhere else is
    /// not base64. The unused low bits of the last character are ignored, as Foundation ignores
    /// them. One pass, no copy of the text.
    ///
    /// - Parameter limit: the most bytes decoded: `CMSSignedData.maximumSize` for a receipt (a
    ///   StoreKit 1 transaction receipt's property list has its own, smaller one).
    /// - Throws: `.tooLarge` when the text holds more characters than `limit` bytes need
    ///   (whatever they are); `.notBase64` for anything else that is not base64.
    package static func decode(
        _ text: some Collection<UInt8>, limit: Int = CMSSignedData.maximumSize
    ) throws(DecodingError) -> [UInt8] {
        if let result = text.withContiguousStorageIfAvailable({ decoding($0, limit: limit) }) {
            return try result.get()
        }
        return try Array(text).withUnsafeBufferPointer { decoding($0, limit: limit) }.get()
    }

    private static func decoding(_ text: UnsafeBufferPointer<UInt8>, limit: Int) -> Result<[UInt8], DecodingError> {
        let maximumCharacters = (limit + 2) / 3 * 4
        let capacity = min(text.count, maximumCharacters) / 4 * 3 + 3
        var outcome = Outcome()
        let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { out, initialized in
            outcome = classes.withUnsafeBufferPointer {
                decode(text, classes: $0, into: out, maximum: maximumCharacters)
            }
            initialized = outcome.written
        }
        if outcome.characters > maximumCharacters { return .failure(.tooLarge(limit: limit)) }
        guard outcome.valid, outcome.characters > 0, outcome.characters % 4 != 1 else { return .failure(.notBase64) }
        return .success(bytes)
    }

    /// What one pass found: characters counted (whitespace not; one past `maximum` at most),
    /// whether they are base64, and the bytes written.
    private struct Outcome {
        var characters = 0
        var valid = true
        var written = 0
    }

    /// The pass itself, its state in locals (a closure's captured variables would live on the heap).
    private static func decode(
        _ text: UnsafeBufferPointer<UInt8>, classes: UnsafeBufferPointer<UInt8>,
        into out: UnsafeMutableBufferPointer<UInt8>,
        maximum: Int
    ) -> Outcome {
        // The values of the group in progress and the padding seen: once padding starts, only
        // padding and whitespace may follow.
        var characters = 0
        var valid = true
        var padded = 0
        var group: UInt32 = 0
        var inGroup = 0
        var written = 0
        var index = 0
        let count = text.count
        while index < count {
            // Four characters of the alphabet at a group's start (most of a receipt) at once:
            // only a class that is not a value has bit 6 or 7.
            if inGroup == 0, padded == 0, valid {
                let end = min(count, index &+ (maximum &- characters))
                let start = index
                while index &+ 4 <= end {
                    let a = UInt32(classes[Int(text[index])])
                    let b = UInt32(classes[Int(text[index &+ 1])])
                    let c = UInt32(classes[Int(text[index &+ 2])])
                    let d = UInt32(classes[Int(text[index &+ 3])])
                    guard (a | b | c | d) & 0xC0 == 0 else { break }
                    let chunk = a << 18 | b << 12 | c << 6 | d
                    out[written] = UInt8(truncatingIfNeeded: chunk >> 16)
                    out[written &+ 1] = UInt8(truncatingIfNeeded: chunk >> 8)
                    out[written &+ 2] = UInt8(truncatingIfNeeded: chunk)
                    written &+= 3
                    index &+= 4
                }
                characters &+= index &- start
                guard index < count else { break }
            }
            let value = classes[Int(text[index])]
            index += 1
            if value == whitespace { continue }
            characters += 1
            guard characters <= maximum else { break }
            guard valid else { continue }
            if value < padding, padded == 0 {
                group = group << 6 | UInt32(value)
                inGroup += 1
                if inGroup == 4 {
                    out[written] = UInt8(truncatingIfNeeded: group >> 16)
                    out[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                    out[written + 2] = UInt8(truncatingIfNeeded: group)
                    written += 3
                    group = 0
                    inGroup = 0
                }
            } else if value == padding, inGroup >= 2, inGroup + padded < 4 {
                padded += 1
            } else {
                valid = false
            }
        }
        // Padding restored: two or three characters of a last group make one or two bytes.
        if inGroup == 1 {
            valid = false
        } else if valid, inGroup >= 2 {
            out[written] = UInt8(truncatingIfNeeded: group >> (inGroup == 2 ? 4 : 10))
            written += 1
            if inGroup == 3 {
                out[written] = UInt8(truncatingIfNeeded: group >> 2)
                written += 1
            }
        }
        return Outcome(characters: characters, valid: valid, written: valid ? written : 0)
    }
}
