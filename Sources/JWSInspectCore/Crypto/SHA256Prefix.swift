internal import COpenSSL

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// SHA-256 state after absorbing the leading whole blocks of a byte string, reusable
/// for every message that starts with those bytes.
///
/// Every token of one chain starts its ES256 signing input with the same ~4.7 KB header;
/// hashing it once and continuing from a copy of the state saves most of the digest work.
/// `@unchecked Sendable`: the state is never updated after init, only copied (a read).
final class SHA256Prefix: @unchecked Sendable {
    private let context: OpaquePointer
    /// How many leading bytes are absorbed (a multiple of the 64-byte block).
    let length: Int
    /// The absorbed bytes, to confirm a message really starts with them.
    private let absorbed: [UInt8]

    /// Absorbs the whole 64-byte blocks of `prefix`.
    init?(_ prefix: ArraySlice<UInt8>) {
        let length = prefix.count / 64 * 64
        guard length > 0, let context = EVP_MD_CTX_new() else { return nil }
        let bytes = Array(prefix.prefix(length))
        let ok =
            EVP_DigestInit_ex(context, OpenSSLAlgorithms.shared.sha256, nil) == 1
            && bytes.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) } == 1
        guard ok else {
            OpenSSLError.drain()
            EVP_MD_CTX_free(context)
            return nil
        }
        self.context = context
        self.length = length
        self.absorbed = bytes
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// SHA-256 of `message`, continuing from the absorbed state; nil when `message` does
    /// not start with the absorbed bytes.
    func digest(of message: UnsafeRawBufferPointer) -> [UInt8]? {
        guard message.count >= length,
            absorbed.withUnsafeBytes({ memcmp(message.baseAddress!, $0.baseAddress!, length) }) == 0
        else { return nil }
        guard let copy = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(copy) }
        var out = [UInt8](repeating: 0, count: 32)
        var outLength: UInt32 = 0
        let ok =
            EVP_MD_CTX_copy_ex(copy, context) == 1
            && EVP_DigestUpdate(copy, message.baseAddress! + length, message.count - length) == 1
            && EVP_DigestFinal_ex(copy, &out, &outLength) == 1
        guard ok, outLength == 32 else {
            OpenSSLError.drain()
            return nil
        }
        return out
    }
}

/// Algorithms fetched from OpenSSL's default provider once, instead of by name on every use.
/// `@unchecked Sendable`: fetched algorithm objects are immutable and shareable.
final class OpenSSLAlgorithms: @unchecked Sendable {
    static let shared = OpenSSLAlgorithms()
    let sha256: OpaquePointer?

    private init() {
        sha256 = EVP_MD_fetch(nil, "SHA256", nil)
    }
}
