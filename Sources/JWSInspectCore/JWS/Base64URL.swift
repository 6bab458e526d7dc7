/// Strict base64url (RFC 4648 §5) without padding, as JWS compact serialization uses.
public enum Base64URL {
    /// Why a segment is not canonical unpadded base64url.
    public enum DecodingError: Error, Equatable, Sendable, CustomStringConvertible {
        /// A byte outside `A–Z a–z 0–9 - _` at `offset` (padding `=` included).
        case invalidCharacter(UInt8, offset: Int)
        /// A length of 4n+1 characters cannot encode whole bytes.
        case impossibleLength(Int)
        /// The unused low bits of the last character are not zero.
        case nonCanonical

        public var description: String {
            switch self {
            case .invalidCharacter(let byte, let offset):
                let shown = (0x21...0x7e).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\([byte].hexString())"
                return "\(shown) at offset \(offset) is not base64url (padding and the standard alphabet are not allowed)"
            case .impossibleLength(let length):
                return "\(length) characters cannot be base64url (a length of 4n+1 is impossible)"
            case .nonCanonical:
                return "the last character has non-zero unused bits (not canonical base64url)"
            }
        }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Decodes unpadded base64url.
    public static func decode<Bytes: Collection>(_ text: Bytes) throws(DecodingError) -> [UInt8] where Bytes.Element == UInt8 {
        let count = text.count
        var out: [UInt8] = []
        out.reserveCapacity(count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        var offset = 0
        for byte in text {
            let value = decodeTable[Int(byte)]
            guard value != 0xff else { throw .invalidCharacter(byte, offset: offset) }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
            offset += 1
        }
        guard count % 4 != 1 else { throw .impossibleLength(count) }
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { throw .nonCanonical }
        return out
    }

    /// Encodes bytes as unpadded base64url.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in stride(from: 18, through: 0, by: -6) { out.append(alphabet[Int((chunk >> UInt32(shift)) & 63)]) }
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
