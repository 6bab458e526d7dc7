/// Strict base64url (RFC 4648 §5) without padding, as JWS compact serialization uses.
package enum Base64URL {
    /// Why a segment is not canonical unpadded base64url.
    package enum DecodingError: Error, Equatable, Sendable, CustomStringConvertible {
        /// A byte outside `A–Z a–z 0–9 - _` at `offset` (padding `=` included).
        case invalidCharacter(UInt8, offset: Int)
        /// A length of 4n+1 characters cannot encode whole bytes.
        case impossibleLength(Int)
        /// The unused low bits of the last character are not zero.
        case nonCanonical

        package var description: String {
            switch self {
            case .invalidCharacter(let byte, let offset):
                let shown =
                    (0x21...0x7e).contains(byte)
                    ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\([byte].hexString())"
                return
                    "\(shown) at offset \(offset) is not base64url (padding and the standard alphabet are not allowed)"
            case .impossibleLength(let length):
                return "\(length) characters cannot be base64url (a length of 4n+1 is impossible)"
            case .nonCanonical:
                return "the last character has non-zero unused bits (not canonical base64url)"
            }
        }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's base64url value; 0xff for bytes outside the alphabet.
    static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Decodes unpadded base64url.
    package static func decode<Bytes: Collection>(_ text: Bytes) throws(DecodingError) -> [UInt8]
    where Bytes.Element == UInt8 {
        if let result = text.withContiguousStorageIfAvailable({ decoding($0) }) {
            return try result.get()
        }
        return try Array(text).withUnsafeBufferPointer { decoding($0) }.get()
    }

    /// Decodes unpadded base64url read in place.
    static func decode(_ text: UnsafeBufferPointer<UInt8>) throws(DecodingError) -> [UInt8] {
        try decoding(text).get()
    }

    /// Decodes four characters at a time into three bytes (this runs over every token's
    /// payload and signature, so it works on raw buffers).
    private static func decoding(_ input: UnsafeBufferPointer<UInt8>) -> Result<[UInt8], DecodingError> {
        let count = input.count
        let whole = count / 4
        let rest = count % 4
        let outputCount = whole * 3 + (rest == 0 ? 0 : rest - 1)
        return decodeTable.withUnsafeBufferPointer { table -> Result<[UInt8], DecodingError> in
            var failure: DecodingError?
            let output = [UInt8](unsafeUninitializedCapacity: max(outputCount, 1)) { out, initialized in
                initialized = 0
                var o = 0
                var i = 0
                func value(_ offset: Int) -> UInt32? {
                    let v = table[Int(input[offset])]
                    if v == 0xff {
                        failure = .invalidCharacter(input[offset], offset: offset)
                        return nil
                    }
                    return UInt32(v)
                }
                while i + 4 <= count {
                    let a = UInt32(table[Int(input[i])])
                    let b = UInt32(table[Int(input[i + 1])])
                    let c = UInt32(table[Int(input[i + 2])])
                    let d = UInt32(table[Int(input[i + 3])])
                    // One test for all four: only the 0xff of a byte outside the alphabet has bit 7.
                    guard (a | b | c | d) & 0x80 == 0 else {
                        for offset in i..<(i + 4) where value(offset) == nil { return }
                        return
                    }
                    let chunk = a << 18 | b << 12 | c << 6 | d
                    out[o] = UInt8(truncatingIfNeeded: chunk >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: chunk >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: chunk)
                    o += 3
                    i += 4
                }
                var chunk: UInt32 = 0
                for offset in i..<count {
                    guard let v = value(offset) else { return }
                    chunk = chunk << 6 | v
                }
                if rest == 1 {
                    failure = .impossibleLength(count)
                    return
                }
                if rest == 2 {
                    guard chunk & 0xf == 0 else {
                        failure = .nonCanonical
                        return
                    }
                    out[o] = UInt8(truncatingIfNeeded: chunk >> 4)
                    o += 1
                } else if rest == 3 {
                    guard chunk & 0x3 == 0 else {
                        failure = .nonCanonical
                        return
                    }
                    out[o] = UInt8(truncatingIfNeeded: chunk >> 10)
                    out[o + 1] = UInt8(truncatingIfNeeded: chunk >> 2)
                    o += 2
                }
                initialized = o
            }
            if let failure { return .failure(failure) }
            return .success(output)
        }
    }

    /// Encodes bytes as unpadded base64url.
    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in stride(from: 18, through: 0, by: -6) {
                out.append(alphabet[Int((chunk >> UInt32(shift)) & 63)])
            }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            var chunk = UInt32(bytes[index]) << 16
            if rest == 2 { chunk |= UInt32(bytes[index + 1]) << 8 }
            for position in 0...rest { out.append(alphabet[Int((chunk >> UInt32(18 - 6 * position)) & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
