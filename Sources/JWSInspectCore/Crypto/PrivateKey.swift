internal import COpenSSL

/// A P-256 private key (an App Store Connect In-App Purchase key, `AuthKey_<KEYID>.p8`): what
/// developer tokens and legacy offer signatures are signed with. Loaded by `KeyFile`.
///
/// The key material never leaves OpenSSL: no property, description or error shows it
/// (`description` and the mirror name only the curve).
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never mutated after init, and OpenSSL 3 allows
/// concurrent signing with one key.
public final class PrivateKey: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let pointer: OpaquePointer
    /// The public half.
    public let publicKey: PublicKey

    /// Takes ownership of a P-256 `EVP_PKEY*` holding a private key; nil (the key freed) when
    /// its public half cannot be encoded.
    init?(taking pointer: OpaquePointer) {
        self.pointer = pointer
        let length = i2d_PUBKEY(pointer, nil)
        var der = [UInt8](repeating: 0, count: Int(max(length, 0)))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_PUBKEY(pointer, &cursor)
        }
        guard length > 0, written == length, let publicKey = PublicKey(subjectPublicKeyInfo: der) else {
            OpenSSLError.drain()
            EVP_PKEY_free(pointer)
            return nil
        }
        self.publicKey = publicKey
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    public var description: String { "\(publicKey.summary) private key" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["key": description]) }

    /// An ES256 signature (ECDSA P-256 with SHA-256) over `message`, in the JWS form: the
    /// 64 bytes `r || s`, each left-padded to 32 bytes (RFC 7518 §3.4).
    public func signES256(_ message: [UInt8]) -> [UInt8] {
        guard let raw = Self.rawSignature(der: signDER(message)) else {
            preconditionFailure("OpenSSL's ECDSA signature did not decode: \(OpenSSLError.describe(or: "no detail"))")
        }
        return raw
    }

    /// An ECDSA P-256 signature with SHA-256 over `message`, DER-encoded (`ECDSA-Sig-Value`), as
    /// OpenSSL makes it: the form of the legacy (V1) promotional offer signature.
    public func signDER(_ message: [UInt8]) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
            preconditionFailure("EVP_DigestSignInit failed: \(OpenSSLError.describe(or: "no detail"))")
        }
        // A one-byte stand-in keeps the data pointer non-NULL for an empty message.
        let input = message.isEmpty ? [0] : message
        return input.withUnsafeBufferPointer { data -> [UInt8] in
            var length = 0
            guard EVP_DigestSign(context, nil, &length, data.baseAddress, message.count) == 1 else {
                preconditionFailure("EVP_DigestSign failed: \(OpenSSLError.describe(or: "no detail"))")
            }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &signature, &length, data.baseAddress, message.count) == 1 else {
                preconditionFailure("EVP_DigestSign failed: \(OpenSSLError.describe(or: "no detail"))")
            }
            return Array(signature.prefix(length))
        }
    }

    /// A DER `ECDSA-Sig-Value` as the raw 64 bytes `r || s` of ES256, each left-padded to 32
    /// bytes; nil when it is not one DER signature (trailing bytes included) or r or s needs
    /// more than 32 bytes.
    public static func rawSignature(der: [UInt8]) -> [UInt8]? {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count)
            guard let signature, cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                ECDSA_SIG_free(signature)
                return nil
            }
            return signature
        }
        guard let parsed else {
            OpenSSLError.drain()
            return nil
        }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(parsed, &r, &s)
        guard let r, let s else { return nil }
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
        }
        guard written else {
            OpenSSLError.drain()
            return nil
        }
        return raw
    }
}

extension PublicKey {
    /// Verifies a DER ECDSA P-256 SHA-256 signature over `message` (the legacy V1 offer
    /// signature's form); true only when OpenSSL says it verifies.
    public func verifyDER(signature: [UInt8], message: [UInt8]) -> Bool {
        guard curveName == "prime256v1", let raw = PrivateKey.rawSignature(der: signature) else { return false }
        return verifyES256(signature: raw, message: message) == nil
    }
}
