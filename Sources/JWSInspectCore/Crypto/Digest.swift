internal import COpenSSL

/// One-shot message digests through OpenSSL's EVP interface.
package enum Digest {
    /// SHA-256 of `bytes` (32 bytes).
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        digest(bytes, EVP_sha256(), length: 32)
    }

    /// SHA-256 of bytes read in place.
    static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        digest(bytes, EVP_sha256(), length: 32)
    }

    /// SHA-384 of `bytes` (48 bytes).
    package static func sha384(_ bytes: [UInt8]) -> [UInt8] {
        digest(bytes, EVP_sha384(), length: 48)
    }

    private static func digest(_ bytes: [UInt8], _ md: OpaquePointer?, length: Int) -> [UInt8] {
        bytes.withUnsafeBytes { digest($0, md, length: length) }
    }

    private static func digest(_ input: UnsafeRawBufferPointer, _ md: OpaquePointer?, length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var outLength: UInt32 = 0
        let ok = EVP_Digest(input.baseAddress, input.count, &out, &outLength, md, nil)
        // EVP_Digest with a built-in algorithm fails only when memory runs out.
        precondition(
            ok == 1 && Int(outLength) == length, "EVP_Digest failed: \(OpenSSLError.describe(or: "no detail"))")
        return Array(out.prefix(length))
    }
}

extension Array where Element == UInt8 {
    /// Lowercase hexadecimal, optionally with a separator between bytes.
    package func hexString(separator: String = "") -> String {
        let digits: StaticString = "0123456789abcdef"
        guard separator.isEmpty else {
            var out: [UInt8] = []
            out.reserveCapacity(count * (2 + separator.utf8.count))
            for (index, byte) in enumerated() {
                if index > 0 { out.append(contentsOf: separator.utf8) }
                out.append(digits.utf8Start[Int(byte >> 4)])
                out.append(digits.utf8Start[Int(byte & 0x0f)])
            }
            return String(decoding: out, as: UTF8.self)
        }
        // Without a separator (every receipt field shown in hex): written straight into the String.
        return String(unsafeUninitializedCapacity: count * 2) { text in
            for (index, byte) in enumerated() {
                text[2 * index] = digits.utf8Start[Int(byte >> 4)]
                text[2 * index + 1] = digits.utf8Start[Int(byte & 0x0f)]
            }
            return count * 2
        }
    }
}
